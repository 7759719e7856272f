// Runs a Node test file once its prerequisites are there (else fails saying to run scripts/bootstrap):
//   node web/e2e/needs.mjs esbuild,node_modules -- web/test/unit.test.mjs
import { spawnSync } from 'node:child_process';
import { requirePrerequisites } from './lib/prereq.mjs';

const sep = process.argv.indexOf('--');
if (sep !== 3 || process.argv.length < 5) {
  console.error('usage: node web/e2e/needs.mjs <prerequisite,...> -- <file.mjs> [args]');
  process.exit(2);
}
requirePrerequisites(process.argv[2].split(','));
const r = spawnSync(process.execPath, process.argv.slice(4), { stdio: 'inherit' });
process.exit(r.status ?? 1);
