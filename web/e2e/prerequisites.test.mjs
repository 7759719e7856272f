// The browser tests cannot pass, or vanish, by accident: a missing chromium or attest binary fails
// them with what to do, and only ATTEST_E2E_ALLOW_SKIP=1 turns that into a reported skip. CTest:
// web_e2e_prerequisites (needs only Node).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function run(file, env) {
  const clean = { ...process.env };
  delete clean.ATTEST_E2E_ALLOW_SKIP;
  return spawnSync(process.execPath, [join(here, file)], { env: { ...clean, ...env }, encoding: 'utf8', timeout: 60000 });
}

for (const file of ['app.test.mjs', 'perf.test.mjs']) {
  test(`${file}: no chromium fails and says to run scripts/bootstrap`, () => {
    const r = run(file, { ATTEST_CHROMIUM: '/nonexistent/chromium' });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /no chromium at \/nonexistent\/chromium/);
    assert.match(r.stderr, /scripts\/bootstrap/);
    assert.doesNotMatch(r.stdout + r.stderr, /SKIPPED/);
  });

  test(`${file}: ATTEST_E2E_ALLOW_SKIP=1 reports the skip instead`, () => {
    const r = run(file, { ATTEST_CHROMIUM: '/nonexistent/chromium', ATTEST_E2E_ALLOW_SKIP: '1' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^\[web-e2e SKIPPED\] no chromium at/m);
  });

  test(`${file}: no attest binary fails`, () => {
    const r = run(file, { ATTEST_BINARY: '/nonexistent/attest' });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /ATTEST_BINARY/);
  });
}
