// openapi_client (CTest): generates TypeScript types from the document a real `attest serve` serves
// (openapi-typescript), compiles client/calls.ts against them with `tsc --strict` (openapi-fetch),
// and calls the same server through the compiled client: put a document, search, answer, list,
// /v1/me, and a typed 404.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createKey } from '../../web/e2e/lib/attest.mjs';
import { bin, requirePrerequisites, serveDocument, toolsDir } from './lib.mjs';

const attest = requirePrerequisites(['openapi-typescript', 'tsc']);
const { tmp, data, server, file } = await serveDocument(attest);
let failed = true;
try {
  const src = join(tmp, 'client');
  mkdirSync(src);
  symlinkSync(join(toolsDir, 'node_modules'), join(tmp, 'node_modules'));  // openapi-fetch for the compiled client
  const gen = spawnSync(bin('openapi-typescript'), [file, '-o', join(src, 'api.d.ts'),
    // A default is what the server assumes when a request omits the field: still optional to send.
    '--default-non-nullable=false'], { encoding: 'utf8' });
  assert.equal(gen.status, 0, `openapi-typescript failed:\n${gen.stdout}\n${gen.stderr}`);
  copyFileSync(join(toolsDir, 'client', 'calls.ts'), join(src, 'calls.ts'));
  writeFileSync(join(tmp, 'package.json'), '{"type":"module"}\n');
  const tsc = spawnSync(bin('tsc'), ['--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext',
                                     '--skipLibCheck', '--outDir', join(tmp, 'out'), join(src, 'calls.ts')], { encoding: 'utf8' });
  assert.equal(tsc.status, 0, `tsc rejected the client against the generated types:\n${tsc.stdout}\n${tsc.stderr}`);

  const key = createKey(attest, data, { user: 'dana', admin: true });
  const { run } = await import(pathToFileURL(join(tmp, 'out', 'calls.js')).href);
  const doc = {
    id: 'heron-guide',
    title: 'Heron guide',
    text: 'The Heron scheduler retries a failed job three times. Each retry waits twice as long as the one before.',
  };
  const r = await run(server.url, key, doc, 'Heron scheduler retries', 'How many times does the Heron scheduler retry a failed job?');

  assert.equal(r.put.added, 1, JSON.stringify(r.put));
  assert.equal(r.put.documents[0].id, doc.id);
  assert.ok(r.hits.length >= 1, 'search found nothing');
  assert.equal(r.hits[0].doc_id, doc.id);
  assert.match(r.hits[0].snippet, /Heron scheduler/);
  assert.ok(['answer', 'fallback'].includes(r.answer.outcome), r.answer.outcome);
  assert.ok(r.answer.answer_id.length > 0);
  assert.ok(r.answer.sources.some((s) => s.doc_id === doc.id), 'the answer did not use the document');
  assert.deepEqual(r.listed, [doc.id]);
  assert.equal(r.me.user, 'dana');
  assert.equal(r.me.tenant, 'default');
  assert.equal(r.me.admin, true);
  assert.equal(r.missingStatus, 404);
  assert.equal(r.missingCode, 'not_found');
  console.log(`client generated and compiled; put, search (${r.hits.length} hits), answer (${r.answer.outcome}), `
              + `list, me and a typed 404 passed against ${server.url}`);
  failed = false;
} finally {
  await server.stop();
  if (failed) console.log(`attest serve's log:\n${server.log()}`);
  rmSync(tmp, { recursive: true, force: true });
}
