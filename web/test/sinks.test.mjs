// The page never turns text into markup or code (docs/web.md, "Security"): passages, titles, URLs
// and model output are untrusted, so web/src may not use any API that parses a string as HTML or
// script. The browser test proves one hostile document stays inert; this scan proves no code path
// could do otherwise. Run by CTest web_unit (`npm run unit`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

// Each sink with why it is refused. Comments are stripped first, so documentation may name them.
const SINKS = [
  [/\.innerHTML\b/, 'innerHTML parses its string as HTML'],
  [/\.outerHTML\b/, 'outerHTML parses its string as HTML'],
  [/\binsertAdjacentHTML\b/, 'insertAdjacentHTML parses its string as HTML'],
  [/\bcreateContextualFragment\b/, 'createContextualFragment parses HTML'],
  [/\bDOMParser\b/, 'DOMParser builds a document from a string'],
  [/\bdocument\.write(ln)?\b/, 'document.write writes markup'],
  [/\beval\s*\(/, 'eval runs a string as code'],
  [/\bnew\s+Function\b/, 'new Function runs a string as code'],
  [/\bset(Timeout|Interval)\s*\(\s*['"`]/, 'a timer given a string runs it as code'],
  [/setAttribute\s*\(\s*['"`](on\w+|style|srcdoc)['"`]/, 'event-handler, style and srcdoc attributes are code or CSS'],
  [/['"`]javascript:/i, 'a javascript: URL is code'],
  [/\.srcdoc\b/, 'srcdoc is markup'],
];

function stripComments(code) {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

export function findSinks(code) {
  const found = [];
  const lines = stripComments(code).split('\n');
  lines.forEach((line, i) => {
    for (const [re, why] of SINKS) if (re.test(line)) found.push({ line: i + 1, why });
  });
  return found;
}

test('no module of web/src uses an API that parses a string as HTML or code', () => {
  const files = readdirSync(src).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length > 5, `expected the page's modules in ${src}`);
  const problems = [];
  for (const f of files) {
    for (const s of findSinks(readFileSync(join(src, f), 'utf8'))) problems.push(`${f}:${s.line}: ${s.why}`);
  }
  assert.deepEqual(problems, []);
});

test('the scan finds each sink it names (it can fail)', () => {
  const samples = [
    'el.innerHTML = passage.text;', 'node.outerHTML = x;', "el.insertAdjacentHTML('beforeend', t);",
    'range.createContextualFragment(t);', 'new DOMParser().parseFromString(t, "text/html");',
    'document.write(t);', 'eval(t);', 'const f = new Function(t);', "setTimeout('go()', 1);",
    "a.setAttribute('onclick', t);", "a.setAttribute('style', t);", "a.href = 'javascript:void(0)';",
    'frame.srcdoc = t;',
  ];
  for (const s of samples) assert.ok(findSinks(s).length > 0, `not caught: ${s}`);
  assert.deepEqual(findSinks('el.textContent = t; // innerHTML is never used'), []);
  assert.deepEqual(findSinks('/* eval( is refused */ const ok = 1;'), []);
});
