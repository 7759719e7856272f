// mcp_client (CTest): the official MCP TypeScript client (@modelcontextprotocol/client) against a
// real `attest serve` (Streamable HTTP, POST /mcp) and a real `attest mcp` (stdio, key in
// ATTEST_API_KEY), in both protocol eras: the 2026-07-28 stateless one (the client pinned to it,
// connecting with server/discover) and the 2025-11-25 initialize handshake (the client's default).
// Over each of the four: tools/list, `ask` (markers and sources with URLs), `search`, a reader that
// cannot add a document, an admin that adds, finds and deletes one, and tenant isolation compared
// with /v1/search for the same key. Over HTTP also: no credential gets 401 with WWW-Authenticate.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import {
  ACME_DOCS, Checks, GLOBEX_DOCS, QUESTIONS, RARE_WORD, api, markers, requirePrerequisites, serveCorpus,
} from './lib/setup.mjs';

const attest = requirePrerequisites(['@modelcontextprotocol/client']);
const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/client/stdio');

const ERAS = {
  modern: { versionNegotiation: { mode: { pin: '2026-07-28' } }, version: '2026-07-28' },
  legacy: { versionNegotiation: undefined, version: '2025-11-25' },
};
const READ_TOOLS = ['ask', 'get_document', 'list_documents', 'search'];
const ADMIN_TOOLS = ['add_document', 'delete_document'];
const acmeIds = new Set(ACME_DOCS.map((d) => d.id));
const globexIds = new Set(GLOBEX_DOCS.map((d) => d.id));

async function connect(kind, era, key, ctx) {
  const client = new Client({ name: 'attest-mcp-client-test', version: '1.0.0' },
                            ERAS[era].versionNegotiation ? { versionNegotiation: ERAS[era].versionNegotiation } : {});
  let transport;
  if (kind === 'http') {
    transport = new StreamableHTTPClientTransport(new URL(ctx.server.url + '/mcp'),
                                                  key ? { authProvider: { token: async () => key } } : {});
  } else {
    transport = new StdioClientTransport({
      command: attest, args: ['--data', ctx.data, 'mcp'], stderr: 'pipe',
      env: { ...getDefaultEnvironment(), OMP_NUM_THREADS: '1', ATTEST_API_KEY: key },
    });
    transport.stderr?.on('data', (c) => { ctx.stdioLog += c.toString(); });
  }
  await client.connect(transport);
  assert.equal(client.getProtocolEra(), era, `the client negotiated the ${client.getProtocolEra()} era`);
  assert.equal(client.getNegotiatedProtocolVersion(), ERAS[era].version);
  return client;
}

async function withClient(kind, era, key, ctx, fn) {
  const client = await connect(kind, era, key, ctx);
  try { return await fn(client); } finally { await client.close(); }
}

// A tool call that must not succeed: a JSON-RPC error (thrown) or a result with isError.
async function callRefused(client, params) {
  try {
    const r = await client.callTool(params);
    assert.equal(r.isError, true, `${params.name} succeeded: ${JSON.stringify(r)}`);
    return r.content?.[0]?.text ?? '';
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    return String(e.message);
  }
}

function checkAsk(r, allowedIds) {
  assert.ok(!r.isError, `ask failed: ${JSON.stringify(r.content)}`);
  const s = r.structuredContent;
  assert.equal(s.outcome, 'answer', `ask did not answer: ${JSON.stringify(s)}`);
  const ns = markers(s.answer);
  assert.ok(ns.length > 0, `no [n] marker in the answer: ${s.answer}`);
  assert.ok(s.sources.length > 0, 'no sources');
  for (const src of s.sources) {
    assert.ok(allowedIds.has(src.doc_id), `source ${src.doc_id} is not the caller's tenant's`);
    assert.match(src.url, /^https:\/\//, `source ${src.id} has no URL`);
  }
  for (const n of ns) assert.ok(s.sources.some((src) => src.n === n), `marker [${n}] names no source`);
  for (const c of s.claims) {
    for (const cit of c.citations) assert.ok(s.sources.some((src) => src.id === cit.source), `claim cites ${cit.source}`);
  }
  const text = r.content.map((b) => b.text ?? '').join('\n');
  assert.match(text, /\[\d+\]/, 'the text block has no marker');
  assert.match(text, /Sources:/, 'the text block has no Sources list');
  for (const src of s.sources) assert.ok(text.includes(src.url), `the text block lacks ${src.url}`);
  return s;
}

async function runSuite(kind, era, ctx, checks) {
  const { keys } = ctx;
  const tag = `${kind} ${era}`;
  await withClient(kind, era, keys.acmeReader, ctx, async (client) => {
    await checks.run(`${tag}: tools/list for a reader: the read tools, no admin tool, strict input schemas`, async () => {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name).sort();
      assert.deepEqual(names, READ_TOOLS, `tools: ${names}`);
      for (const t of tools) {
        assert.equal(t.inputSchema.type, 'object');
        assert.equal(t.inputSchema.additionalProperties, false, `${t.name} accepts extra arguments`);
      }
      assert.deepEqual(tools.find((t) => t.name === 'ask').inputSchema.required, ['question']);
      assert.deepEqual(tools.find((t) => t.name === 'search').inputSchema.required, ['query']);
    });
    await checks.run(`${tag}: ask answers with [n] markers and sources with URLs`, async () => {
      const s = checkAsk(await client.callTool({ name: 'ask', arguments: { question: QUESTIONS.retries } }), acmeIds);
      assert.ok(s.sources.some((src) => src.doc_id === 'heron-retries'), JSON.stringify(s.sources));
      assert.match(s.answer, /three times/);
    });
    await checks.run(`${tag}: search finds the tenant's document`, async () => {
      const r = await client.callTool({ name: 'search', arguments: { query: 'Heron queue pending jobs', top_k: 5 } });
      assert.ok(!r.isError, JSON.stringify(r.content));
      const hits = r.structuredContent.hits;
      assert.equal(hits[0]?.doc_id, 'heron-queues', JSON.stringify(hits));
      assert.match(hits[0].url, /^https:\/\/docs\.heron\.example\//);
    });
    await checks.run(`${tag}: a reader's key cannot call add_document`, async () => {
      const msg = await callRefused(client, { name: 'add_document', arguments: { id: `reader-${kind}-${era}`, text: 'A note.' } });
      assert.ok(msg.length > 0);
    });
  });
  // One `attest mcp` at a time on the data directory: the admin looks after the reader's client closed.
  await checks.run(`${tag}: the reader's add_document left no document`, async () => {
    const probe = await withClient(kind, era, keys.acmeAdmin, ctx, (admin) =>
      admin.callTool({ name: 'get_document', arguments: { id: `reader-${kind}-${era}` } }));
    assert.equal(probe.isError, true, `the reader's document exists: ${JSON.stringify(probe)}`);
  });

  await checks.run(`${tag}: tenant isolation: acme's search and ask never return globex's documents (as /v1/search)`, async () => {
    for (const [key, own, other, expected] of [[keys.acmeReader, acmeIds, globexIds, ctx.httpSearch.acme],
                                               [keys.globexReader, globexIds, acmeIds, ctx.httpSearch.globex]]) {
      await withClient(kind, era, key, ctx, async (client) => {
        const r = await client.callTool({ name: 'search', arguments: { query: RARE_WORD, top_k: 20 } });
        assert.ok(!r.isError, JSON.stringify(r.content));
        const hits = r.structuredContent.hits;
        assert.ok(hits.length > 0, 'the rare word found nothing');
        for (const h of hits) assert.ok(own.has(h.doc_id) && !other.has(h.doc_id), `foreign hit ${h.doc_id}`);
        assert.deepEqual(hits.map((h) => [h.doc_id, h.chunk_id]), expected, 'MCP search differs from /v1/search');
        const a = await client.callTool({ name: 'ask', arguments: { question: `Where is ${RARE_WORD} used?` } });
        assert.ok(!a.isError, JSON.stringify(a.content));
        const s = a.structuredContent;
        for (const src of s.sources ?? []) assert.ok(own.has(src.doc_id), `foreign source ${src.doc_id}`);
        for (const res of s.results ?? []) assert.ok(own.has(res.doc_id), `foreign fallback result ${res.doc_id}`);
        assert.ok((s.sources ?? []).length + (s.results ?? []).length > 0, 'ask used nothing');
        // Naming the other tenant does not reach it.
        const otherTenant = key === keys.acmeReader ? 'globex' : 'acme';
        const x = await client.callTool({ name: 'search', arguments: { query: RARE_WORD, tenant: otherTenant } })
          .catch((e) => ({ isError: true, content: [{ text: e.message }] }));
        if (!x.isError) for (const h of x.structuredContent.hits) assert.ok(own.has(h.doc_id), `tenant argument reached ${h.doc_id}`);
      });
    }
  });

  await checks.run(`${tag}: an admin adds a document, finds it, deletes it`, async () => {
    const id = `admin-note-${kind}-${era}`;
    const word = `quorvex${kind}${era}`;
    await withClient(kind, era, keys.acmeAdmin, ctx, async (client) => {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, [...ADMIN_TOOLS, ...READ_TOOLS].sort(), `admin tools: ${names}`);
      const add = await client.callTool({ name: 'add_document', arguments: {
        id, title: 'Admin note', url: 'https://docs.heron.example/admin-note', text: `The ${word} switch turns Heron maintenance mode on.` } });
      assert.ok(!add.isError, JSON.stringify(add.content));
      const found = await client.callTool({ name: 'search', arguments: { query: word } });
      assert.deepEqual(found.structuredContent.hits.map((h) => h.doc_id), [id]);
      const got = await client.callTool({ name: 'get_document', arguments: { id } });
      assert.ok(!got.isError, JSON.stringify(got.content));
      const del = await client.callTool({ name: 'delete_document', arguments: { id } });
      assert.ok(!del.isError, JSON.stringify(del.content));
      const after = await client.callTool({ name: 'search', arguments: { query: word } });
      assert.deepEqual(after.structuredContent.hits, [], 'the deleted document is still found');
      const gone = await client.callTool({ name: 'get_document', arguments: { id } });
      assert.equal(gone.isError, true, 'get_document of a deleted document succeeded');
    });
  });
}

// The client's error for a 401: UnauthorizedError, or SdkHttpError carrying the status.
const refused401 = (e) => e?.data?.status === 401 || /\b401\b|unauthori[sz]ed/i.test(`${e.name} ${e.message}`);

async function httpOnly(ctx, checks) {
  await checks.run('http: POST /mcp without a credential: 401 with WWW-Authenticate: Bearer', async () => {
    const res = await fetch(ctx.server.url + '/mcp', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {
        protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer\b/);
  });
  for (const era of Object.keys(ERAS)) {
    await checks.run(`http ${era}: the official client without a credential cannot connect`, async () => {
      await assert.rejects(connect('http', era, null, ctx), refused401);
    });
    await checks.run(`http ${era}: a wrong key cannot connect`, async () => {
      await assert.rejects(connect('http', era, 'att_not_a_real_key', ctx), refused401);
    });
  }
}

const ctx = await serveCorpus(attest);
ctx.stdioLog = '';
const checks = new Checks();
let failed = true;
try {
  ctx.httpSearch = {};
  for (const [tenant, key] of [['acme', ctx.keys.acmeReader], ['globex', ctx.keys.globexReader]]) {
    const r = await api(ctx.server.url, key, 'POST', '/v1/search', { query: RARE_WORD, top_k: 20 });
    assert.equal(r.status, 200, r.text);
    ctx.httpSearch[tenant] = r.json.hits.map((h) => [h.doc_id, h.chunk_id]);
    assert.ok(ctx.httpSearch[tenant].length > 0, `/v1/search found no ${RARE_WORD} for ${tenant}`);
  }
  await httpOnly(ctx, checks);
  for (const era of Object.keys(ERAS)) await runSuite('http', era, ctx, checks);
  // `attest mcp` opens the data directory itself: the server lets go of it first.
  await ctx.server.stop();
  for (const era of Object.keys(ERAS)) await runSuite('stdio', era, ctx, checks);
  console.log(`mcp_client: ${checks.passed} checks passed (HTTP and stdio, eras 2026-07-28 and 2025-11-25)`);
  failed = false;
} finally {
  await ctx.server.stop();
  if (failed) {
    console.log(`attest serve's log:\n${ctx.server.log().slice(-4000)}`);
    console.log(`attest mcp's stderr:\n${ctx.stdioLog.slice(-4000)}`);
  }
  rmSync(ctx.tmp, { recursive: true, force: true });
}
