// Shared by openapi_lint and openapi_client (CTest): the pinned tools of this folder, and a real
// `attest serve` (on 127.0.0.1, port 0, a temporary data directory) to take the document from.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from '../../web/e2e/lib/attest.mjs';

export const toolsDir = dirname(fileURLToPath(import.meta.url));
export const bin = (name) => join(toolsDir, 'node_modules', '.bin', name);

// Fails (exit 1) when a prerequisite is missing; skips (exit 0, "[openapi SKIPPED]") only when
// ATTEST_E2E_ALLOW_SKIP=1.
export function requirePrerequisites(tools) {
  const missing = [];
  const attest = process.env.ATTEST_BINARY;
  if (!attest || !existsSync(attest)) missing.push(`the attest binary (ATTEST_BINARY=${attest ?? ''})`);
  for (const t of tools) if (!existsSync(bin(t))) missing.push(`tools/openapi/node_modules/.bin/${t}`);
  if (missing.length === 0) return attest;
  console.log(`missing: ${missing.join(', ')}: run scripts/bootstrap (npm ci in tools/openapi), then cmake again`);
  if (process.env.ATTEST_E2E_ALLOW_SKIP === '1') {
    console.log('[openapi SKIPPED] prerequisites missing');
    process.exit(0);
  }
  process.exit(1);
}

// A temporary directory, a started server and its document written to <tmp>/openapi.json.
export async function serveDocument(attest) {
  const tmp = mkdtempSync(join(tmpdir(), 'attest-openapi-'));
  const data = join(tmp, 'data');
  const server = await startServe(attest, data);
  const res = await fetch(server.url + '/v1/openapi.json');
  if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
  const file = join(tmp, 'openapi.json');
  writeFileSync(file, await res.text());
  return { tmp, data, server, file };
}
