// Shared by mcp_client, openai_client and mcp_conformance (CTest): the prerequisites, a small
// two-tenant corpus put through the HTTP API of a real `attest serve`, and the keys that read it.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, createKey, startServe } from '../../../web/e2e/lib/attest.mjs';

export { api, createKey, startServe };
export const clientsDir = dirname(dirname(fileURLToPath(import.meta.url)));
export const modulePath = (name) => join(clientsDir, 'node_modules', name);

// Fails (exit 1) when the binary or a package is missing; skips (exit 0, "[clients SKIPPED]") only
// when ATTEST_E2E_ALLOW_SKIP=1.
export function requirePrerequisites(packages) {
  const missing = [];
  const attest = process.env.ATTEST_BINARY;
  if (!attest || !existsSync(attest)) missing.push(`the attest binary (ATTEST_BINARY=${attest ?? ''})`);
  for (const p of packages) if (!existsSync(join(modulePath(p), 'package.json'))) missing.push(`tools/clients/node_modules/${p}`);
  if (missing.length === 0) return attest;
  console.log(`missing: ${missing.join(', ')}: run scripts/bootstrap (npm ci in tools/clients), then cmake again`);
  if (process.env.ATTEST_E2E_ALLOW_SKIP === '1') {
    console.log('[clients SKIPPED] prerequisites missing');
    process.exit(0);
  }
  process.exit(1);
}

// The word both tenants' documents carry: the isolation checks search for it.
export const RARE_WORD = 'zembrolite';

// Tenant "acme": documents with URLs and dates, answerable questions; tenant "globex": one document
// that shares the rare word with acme's, and one of its own.
export const ACME_DOCS = [
  {
    id: 'heron-retries', title: 'Heron scheduler: retries', url: 'https://docs.heron.example/retries',
    published: '2025-03-14', content_type: 'text',
    text: 'The Heron scheduler retries a failed job three times. Each retry waits twice as long as the one before. '
      + 'After the third failed retry the job is marked as dead and an alert is sent to the on-call engineer.',
  },
  {
    id: 'heron-queues', title: 'Heron scheduler: queues', url: 'https://docs.heron.example/queues',
    published: '2025-04-02', content_type: 'text',
    text: 'Heron keeps one queue per team. A queue holds at most 5,000 pending jobs; '
      + 'jobs submitted to a full queue are rejected with the error queue_full.',
  },
  {
    id: 'heron-storage', title: 'Heron storage notes', url: 'https://docs.heron.example/storage',
    published: '2025-05-20', content_type: 'text',
    text: `Heron stores job results on ${RARE_WORD} volumes. A ${RARE_WORD} volume keeps results for 30 days `
      + 'before they are deleted.',
  },
];
export const GLOBEX_DOCS = [
  {
    id: 'globex-lab-memo', title: 'Globex lab memo', url: 'https://intranet.globex.example/lab-memo',
    published: '2025-02-11', content_type: 'text',
    text: `The Globex lab coats its sensors with ${RARE_WORD} paste. ${RARE_WORD} paste cures in 12 hours `
      + 'at room temperature.',
  },
  {
    id: 'globex-badges', title: 'Globex badges', url: 'https://intranet.globex.example/badges',
    published: '2025-01-08', content_type: 'text',
    text: 'Globex visitor badges expire after one day. Lost badges are reported to the front desk.',
  },
];

export const QUESTIONS = {
  retries: 'How many times does the Heron scheduler retry a failed job?',
  queue: 'How many pending jobs can a Heron queue hold?',
};

// A temporary data directory, a started `attest serve`, keys of both tenants (an admin and a reader
// each) and the corpus put through POST /v1/documents.
export async function serveCorpus(attest, { serveArgs = [], globalArgs = [] } = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'attest-clients-'));
  const data = join(tmp, 'data');
  const server = await startServe(attest, data, { serveArgs, globalArgs });
  const keys = {
    acmeAdmin: createKey(attest, data, { user: 'ada', tenant: 'acme', admin: true }),
    acmeReader: createKey(attest, data, { user: 'rita', tenant: 'acme' }),
    globexAdmin: createKey(attest, data, { user: 'gus', tenant: 'globex', admin: true }),
    globexReader: createKey(attest, data, { user: 'gina', tenant: 'globex' }),
  };
  for (const [key, docs] of [[keys.acmeAdmin, ACME_DOCS], [keys.globexAdmin, GLOBEX_DOCS]]) {
    const r = await api(server.url, key, 'POST', '/v1/documents:batch', { documents: docs });
    if (r.status !== 200) throw new Error(`POST /v1/documents:batch answered ${r.status}: ${r.text}`);
  }
  return { tmp, data, server, keys };
}

// Markers [n] in a text, as numbers.
export function markers(text) {
  return [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
}

// Records named checks so a test prints what passed and fails on the first failure.
export class Checks {
  constructor() { this.passed = 0; }
  async run(name, fn) {
    try {
      await fn();
      this.passed += 1;
      console.log(`ok   ${name}`);
    } catch (e) {
      console.log(`FAIL ${name}`);
      throw e;
    }
  }
}
