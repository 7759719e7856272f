// Builds the page served by `attest serve` at / into dist/ (committed; CMake embeds it in the binary).
//   node build.mjs           bundle src/ into dist/
//   node build.mjs --verify  bundle into a temporary folder and fail unless it equals dist/ byte for byte
// The output is deterministic: same sources and same pinned tools (package-lock.json) give the same
// bytes, so the committed bundle can be checked against its sources (CTest web_bundle_reproducible).
// Asset names carry a content hash (long-lived cache); index.html does not (served with no-cache).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const verify = process.argv.includes('--verify');
const out = verify ? mkdtempSync(join(tmpdir(), 'attest-web-')) : join(here, 'dist');

function hashed(name, bytes) {
  const h = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  const dot = name.lastIndexOf('.');
  return `${name.slice(0, dot)}-${h}${name.slice(dot)}`;
}

async function bundle() {
  const result = await build({
    entryPoints: [join(here, 'src/main.ts'), join(here, 'src/styles.css')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020'],
    legalComments: 'none',
    charset: 'utf8',
    write: false,
    outdir: 'out',
    logLevel: 'warning',
  });
  const files = {};
  for (const f of result.outputFiles) files[basename(f.path)] = Buffer.from(f.contents);
  return files;
}

const files = await bundle();
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
const names = {};
for (const [name, bytes] of Object.entries(files)) {
  const target = hashed(name === 'main.js' ? 'app.js' : name === 'styles.css' ? 'app.css' : name, bytes);
  names[name] = target;
  writeFileSync(join(out, 'assets', target), bytes);
}
const icon = readFileSync(join(here, 'src/favicon.svg'));
names['favicon.svg'] = hashed('favicon.svg', icon);
writeFileSync(join(out, 'assets', names['favicon.svg']), icon);

const html = readFileSync(join(here, 'src/index.html'), 'utf8')
  .replace('{{app.js}}', `/assets/${names['main.js']}`)
  .replace('{{app.css}}', `/assets/${names['styles.css']}`)
  .replace('{{favicon.svg}}', `/assets/${names['favicon.svg']}`);
if (html.includes('{{')) throw new Error('src/index.html names an asset build.mjs does not make');
writeFileSync(join(out, 'index.html'), html);

if (verify) {
  const list = (dir) => [
    ...readdirSync(dir).filter((n) => n !== 'assets').map((n) => n),
    ...readdirSync(join(dir, 'assets')).map((n) => `assets/${n}`),
  ].sort();
  const committed = join(here, 'dist');
  const a = list(committed), b = list(out);
  const problems = [];
  if (a.join('\n') !== b.join('\n')) problems.push(`files differ:\n  dist/: ${a.join(' ')}\n  built: ${b.join(' ')}`);
  for (const n of b) {
    if (!a.includes(n)) continue;
    if (!readFileSync(join(committed, n)).equals(readFileSync(join(out, n)))) problems.push(`${n} differs`);
  }
  rmSync(out, { recursive: true, force: true });
  if (problems.length) {
    console.error('web/dist is not the build of web/src (run `npm run build` in web/ and commit dist/):');
    for (const p of problems) console.error('  ' + p);
    process.exit(1);
  }
  console.log(`web/dist matches a fresh build of web/src (${b.length} files)`);
} else {
  console.log(`built ${Object.values(names).join(', ')}, index.html into ${out}`);
}
