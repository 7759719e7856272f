// openapi_lint (CTest): the document a real `attest serve` serves passes Redocly CLI's recommended
// rules (redocly.yaml) with 0 errors and 0 warnings.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bin, requirePrerequisites, serveDocument, toolsDir } from './lib.mjs';

const attest = requirePrerequisites(['redocly']);
const { tmp, server, file } = await serveDocument(attest);
await server.stop();
try {
  const report = join(tmp, 'lint.json');
  const r = spawnSync(bin('redocly'), ['lint', '--config', join(toolsDir, 'redocly.yaml'), '--format=json', file],
                      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], // No telemetry and no update check: the test never reaches the network.
                      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
  let out;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    console.log(`redocly lint printed no JSON report (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
    process.exit(1);
  }
  const { errors, warnings } = out.totals;
  for (const p of out.problems ?? []) {
    console.log(`${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? ''}`);
  }
  console.log(`redocly lint (recommended): ${errors} errors, ${warnings} warnings`);
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  console.log(`${operations} operations, ${Object.keys(doc.components.schemas).length} schemas`);
  process.exit(errors === 0 && warnings === 0 && r.status === 0 ? 0 : 1);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
