// The committed bundle's checks (CTest):
//   node web/e2e/bundle.mjs --verify   web/dist is byte for byte the build of web/src (web_bundle_reproducible)
//   node web/e2e/bundle.mjs --size     the page's assets weigh at most 150 KB gzipped (web_bundle_size)
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { requirePrerequisites, webDir } from './lib/prereq.mjs';

const LIMIT_BYTES = 150 * 1024;

if (process.argv.includes('--verify')) {
  requirePrerequisites(['esbuild']);
  const r = spawnSync(process.execPath, [join(webDir, 'build.mjs'), '--verify'], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

if (process.argv.includes('--size')) {
  const dist = join(webDir, 'dist');
  const files = [];
  const walk = (dir) => {
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) walk(p); else files.push(p);
    }
  };
  walk(dist);
  let total = 0;
  for (const f of files.sort()) {
    const bytes = readFileSync(f);
    const gz = gzipSync(bytes, { level: 9 }).length;
    total += gz;
    console.log(`${String(bytes.length).padStart(8)} B  ${String(gz).padStart(7)} B gzipped  ${f.slice(dist.length + 1)}`);
  }
  console.log(`total ${total} B gzipped (${(total / 1024).toFixed(1)} KB), limit ${LIMIT_BYTES / 1024} KB`);
  if (files.length === 0 || total > LIMIT_BYTES) {
    console.error(files.length ? 'web/dist is over the size budget' : 'web/dist is empty');
    process.exit(1);
  }
  process.exit(0);
}

console.error('usage: node web/e2e/bundle.mjs --verify | --size');
process.exit(2);
