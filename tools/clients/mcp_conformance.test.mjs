// mcp_conformance (CTest): the MCP conformance suite (@modelcontextprotocol/conformance) in server
// mode against `attest serve`'s POST /mcp, one scenario at a time, on the machine's Node 20.
//
// Two things stand between the suite and our server, and the test handles both outside the server:
// - The suite's bundle imports fs.globSync (Node 22) at load time; lib/node20_register.mjs resolves
//   that import to node:fs plus a globSync that throws (only the suite's tier-check command uses it).
// - The suite's server mode has no way to send a credential (no header option; its client connects
//   with a bare URL), and /mcp requires a bearer token. The suite therefore talks to a loopback proxy
//   in this process that adds `Authorization: Bearer <a reader's key>` to each request that has none
//   and passes everything else (Host, Origin, every header and byte of the body) through unchanged.
//
// Each scenario is classified: it APPLIES when it tests a feature Attest offers (the handshake, ping,
// listing tools and resources, Origin/Host validation); it does NOT APPLY when it
// needs a fixture tool or resource of the suite's reference server (test_simple_text, test://…) or a
// feature Attest does not offer (prompts, completions, logging, sampling, elicitation,
// subscriptions, SSE streams, sessions). An applicable scenario passes when it reports at least one
// successful check and no failed one. The test fails when an applicable scenario fails, or when the suite
// lists a scenario this file has not classified. It prints the table.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientsDir, modulePath, requirePrerequisites, serveCorpus } from './lib/setup.mjs';

const attest = requirePrerequisites(['@modelcontextprotocol/conformance']);
const cli = join(modulePath('@modelcontextprotocol/conformance'), 'dist', 'index.js');
const register = join(clientsDir, 'lib', 'node20_register.mjs');

const APPLIES = {
  'server-initialize': 'initialize handshake (2025-11-25)',
  ping: 'ping (2025-11-25 era)',
  'tools-list': 'tools/list: names, descriptions, input schemas',
  'resources-list': 'resources/list of the caller\'s documents',
  'dns-rebinding-protection': 'Host/Origin validation on loopback',
};
const NOT_APPLICABLE = {
  'logging-set-level': 'logging is not offered',
  'completion-complete': 'completions are not offered',
  'tools-call-simple-text': 'fixture tool test_simple_text',
  'tools-call-image': 'fixture tool test_image_content (Attest returns text only)',
  'tools-call-audio': 'fixture tool test_audio_content',
  'tools-call-embedded-resource': 'fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'fixture tool; logging is not offered',
  'tools-call-error': 'fixture tool test_error_handling (tool errors are checked by mcp_client and serve_mcp_test)',
  'tools-call-with-progress': 'fixture tool; progress notifications are not sent',
  'tools-call-sampling': 'sampling is not used',
  'tools-call-elicitation': 'elicitation is not used',
  'json-schema-2020-12': 'fixture tool json_schema_2020_12_tool',
  'elicitation-sep1034-defaults': 'elicitation is not used',
  'elicitation-sep1330-enums': 'elicitation is not used',
  'server-sse-multiple-streams': 'its checks need a session id, and Attest issues none (the contract: no sessions); it stops at a warning',
  'server-sse-polling': 'SSE streams and sessions are not offered (fixture tool test_reconnection)',
  'resources-read-text': 'fixture resource test://static-text',
  'resources-read-binary': 'fixture resource test://static-binary',
  'resources-templates-read': 'fixture template test://template/{id}/data',
  'resources-subscribe': 'subscriptions are not offered',
  'resources-unsubscribe': 'subscriptions are not offered',
  'prompts-list': 'prompts are not offered',
  'prompts-get-simple': 'prompts are not offered',
  'prompts-get-with-args': 'prompts are not offered',
  'prompts-get-embedded-resource': 'prompts are not offered',
  'prompts-get-with-image': 'prompts are not offered',
};

// Runs the suite's CLI as a child process, asynchronously: the proxy it talks to lives in this
// process's event loop. Resolves to {status, stdout, stderr}.
function conformance(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', register, cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120000);
    child.on('close', (status) => { clearTimeout(timer); resolve({ status, stdout, stderr }); });
  });
}

// A loopback proxy to `target` that adds the bearer token when a request has no Authorization.
function authProxy(target, key) {
  const upstream = new URL(target);
  let added = 0;
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers };
    if (!headers.authorization) { headers.authorization = `Bearer ${key}`; added += 1; }
    const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (up) => { res.writeHead(up.statusCode, up.headers); up.pipe(res); });
    out.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
    req.pipe(out);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}`, added: () => added,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  })));
}

async function listScenarios() {
  const r = await conformance(['list', '--server']);
  assert.equal(r.status, 0, `conformance list failed:\n${r.stdout}\n${r.stderr.slice(0, 2000)}`);
  return [...r.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

function readChecks(dir) {
  const found = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name === 'checks.json') found.push(JSON.parse(readFileSync(join(d, e.name), 'utf8')));
    }
  };
  walk(dir);
  return found.flat();
}

const ctx = await serveCorpus(attest);
const proxy = await authProxy(ctx.server.url, ctx.keys.acmeReader);
const out = mkdtempSync(join(tmpdir(), 'attest-conformance-'));
let failed = true;
try {
  const scenarios = await listScenarios();
  assert.ok(scenarios.length > 0, 'the suite listed no server scenario');
  const unclassified = scenarios.filter((s) => !(s in APPLIES) && !(s in NOT_APPLICABLE));
  const rows = [];
  for (const scenario of scenarios) {
    const dir = join(out, scenario);
    const r = await conformance(['server', '--url', `${proxy.url}/mcp`, '--scenario', scenario, '-o', dir]);
    let checks = [];
    try { checks = readChecks(dir); } catch { /* no results written */ }
    const failures = checks.filter((c) => c.status === 'FAILURE');
    const warnings = checks.filter((c) => c.status === 'WARNING');
    const successes = checks.filter((c) => c.status === 'SUCCESS');
    const passed = r.status === 0 && failures.length === 0 && successes.length > 0;
    rows.push({
      scenario, applies: scenario in APPLIES, passed, checks: checks.length, successes, failures, warnings,
      why: APPLIES[scenario] ?? NOT_APPLICABLE[scenario] ?? 'UNCLASSIFIED',
      exit: r.status, output: `${r.stdout}\n${r.stderr}`,
    });
  }

  const pad = (s, n) => String(s).padEnd(n);
  console.log(`\n${pad('scenario', 32)} ${pad('applies', 8)} ${pad('result', 7)} ${pad('checks', 15)} note`);
  for (const row of rows) {
    const counts = `${row.successes.length} ok/${row.checks}${row.warnings.length ? `, ${row.warnings.length} warn` : ''}`;
    const note = row.passed ? row.why : `${row.why}; ${row.failures.map((f) => `${f.id}: ${f.errorMessage ?? ''}`).join(' | ').slice(0, 200)}`;
    console.log(`${pad(row.scenario, 32)} ${pad(row.applies ? 'yes' : 'no', 8)} ${pad(row.passed ? 'pass' : row.failures.length || row.exit ? 'FAIL' : 'warn', 7)} ${pad(counts, 15)} ${note}`);
  }
  for (const row of rows.filter((x) => x.warnings.length > 0)) {
    for (const w of row.warnings) console.log(`warning ${row.scenario}/${w.id}: ${w.errorMessage ?? w.details?.message ?? ''}`);
  }
  const applicable = rows.filter((r) => r.applies);
  const applicableFailed = applicable.filter((r) => !r.passed);
  const naPassed = rows.filter((r) => !r.applies && r.passed).map((r) => r.scenario);
  console.log(`\napplicable: ${applicable.length - applicableFailed.length}/${applicable.length} passed; `
              + `not applicable: ${rows.length - applicable.length} (of which passing anyway: ${naPassed.join(', ') || 'none'}); `
              + `bearer added by the proxy to ${proxy.added()} requests`);
  for (const row of applicableFailed) console.log(`--- ${row.scenario} (exit ${row.exit}) ---\n${row.output.slice(-3000)}`);
  assert.deepEqual(unclassified, [], 'scenarios this test has not classified');
  assert.deepEqual(applicableFailed.map((r) => r.scenario), [], 'applicable scenarios failed');
  failed = false;
} finally {
  await proxy.close();
  await ctx.server.stop();
  if (failed) console.log(`attest serve's log:\n${ctx.server.log().slice(-3000)}`);
  rmSync(out, { recursive: true, force: true });
  rmSync(ctx.tmp, { recursive: true, force: true });
}
