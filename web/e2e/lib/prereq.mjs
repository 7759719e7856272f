// What the browser tests need before they can run: Node >= 18, web/node_modules (npm ci, done by
// scripts/bootstrap), Debian's chromium and the attest binary. A missing piece FAILS the test with a
// message saying what to do; it is reported as skipped only when ATTEST_E2E_ALLOW_SKIP=1 (CTest's
// SKIP_REGULAR_EXPRESSION matches the "[web-e2e SKIPPED]" line).
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const webDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function stop(problem) {
  if (process.env.ATTEST_E2E_ALLOW_SKIP === '1') {
    console.log(`[web-e2e SKIPPED] ${problem} (ATTEST_E2E_ALLOW_SKIP=1)`);
    process.exit(0);
  }
  console.error(`web e2e: ${problem}.\nRun scripts/bootstrap (it installs chromium and runs npm ci in web/), ` +
    'or set ATTEST_E2E_ALLOW_SKIP=1 to report this test as skipped.');
  process.exit(1);
}

function executable(path) {
  try { accessSync(path, constants.X_OK); return true; } catch { return false; }
}

// Checks the prerequisites named in `needs` ('node_modules', 'esbuild', 'chromium', 'attest') and
// returns { chromium, attest }.
export function requirePrerequisites(needs) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 18) stop(`Node.js ${process.versions.node} is too old (>= 18 is needed)`);
  const out = {};
  if (needs.includes('node_modules') && !existsSync(join(webDir, 'node_modules', 'playwright-core', 'package.json'))) {
    stop(`${join(webDir, 'node_modules')} has no playwright-core: npm ci has not been run in web/`);
  }
  if (needs.includes('esbuild') && !existsSync(join(webDir, 'node_modules', 'esbuild', 'package.json'))) {
    stop(`${join(webDir, 'node_modules')} has no esbuild: npm ci has not been run in web/`);
  }
  if (needs.includes('chromium')) {
    out.chromium = process.env.ATTEST_CHROMIUM || '/usr/bin/chromium';
    if (!executable(out.chromium)) stop(`no chromium at ${out.chromium} (Debian package chromium)`);
  }
  if (needs.includes('attest')) {
    out.attest = process.env.ATTEST_BINARY || '';
    if (!out.attest || !executable(out.attest)) {
      stop(`ATTEST_BINARY (${out.attest || 'unset'}) is not an executable attest binary; CTest passes it`);
    }
  }
  return out;
}
