// Unit tests of the page's pure modules (the event-stream parser and the wording helpers), run
// under Node without a browser: `npm run unit`. The modules are bundled from src/ by esbuild
// (the same pinned tool as the build) and imported from memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

async function load(file) {
  const out = await build({
    entryPoints: [join(here, '..', 'src', file)], bundle: true, format: 'esm', write: false, logLevel: 'silent',
  });
  return import('data:text/javascript;base64,' + Buffer.from(out.outputFiles[0].contents).toString('base64'));
}

const { SseParser } = await load('sse.ts');
const format = await load('format.ts');

function parseChunks(chunks) {
  const events = [];
  const p = new SseParser((e) => events.push(e));
  for (const c of chunks) p.push(c);
  p.end();
  return events;
}

const STREAM = 'event: progress\ndata: {"stage":"plan"}\n\n: keep-alive\n\nevent: delta\r\ndata: {"text":"é ☃ 😀 [1]"}\r\n\r\n' +
  'event: done\rdata: {"a":1}\r\rdata: line one\ndata: line two\n\nevent: last\ndata: {}';
const EXPECTED = [
  { event: 'progress', data: '{"stage":"plan"}' },
  { event: 'delta', data: '{"text":"é ☃ 😀 [1]"}' },
  { event: 'done', data: '{"a":1}' },
  { event: 'message', data: 'line one\nline two' },
  { event: 'last', data: '{}' },
];

test('the parser reads a whole stream: LF, CRLF and CR line ends, comments, multi-line data, a last event without its blank line', () => {
  assert.deepEqual(parseChunks([STREAM]), EXPECTED);
});

test('the parser gives the same events whatever the chunking, also inside a UTF-8 character', () => {
  const bytes = new TextEncoder().encode(STREAM);
  for (let cut = 1; cut < bytes.length; cut++) {
    assert.deepEqual(parseChunks([bytes.subarray(0, cut), bytes.subarray(cut)]), EXPECTED, `cut at byte ${cut}`);
  }
  const single = [];
  for (let i = 0; i < bytes.length; i++) single.push(bytes.subarray(i, i + 1));
  assert.deepEqual(parseChunks(single), EXPECTED, 'one byte at a time');
});

test('an event is delivered as soon as its blank line arrives', () => {
  const events = [];
  const p = new SseParser((e) => events.push(e));
  p.push('event: sources\ndata: {}\n');
  assert.equal(events.length, 0);
  p.push('\n');
  assert.equal(events.length, 1);
});

test('stage lines and failure wording', () => {
  assert.equal(format.stageLine('plan', []), 'Planning…');
  assert.equal(format.stageLine('retrieve', ['a b', 'A B', 'c']), 'Searching: a b · c');
  assert.equal(format.stageLine('write', []), 'Writing');
  assert.equal(format.stageWords('verify'), 'verifying');
  assert.equal(format.stageWords(''), 'sending the question');
});

test('codes in words; unknown codes are still shown', () => {
  assert.equal(format.fallbackWords('no_confident_answer'), 'The sources found do not answer this question.');
  assert.match(format.fallbackWords('something_new'), /something new/);
  assert.equal(format.retractionWords('unsupported'), 'Withdrawn: its quote does not support it');
  assert.match(format.retractionWords('odd_reason'), /odd reason/);
  assert.equal(format.degradedWords(['rerank_skipped_deadline', 'vector_leg_failed: boom']),
    'Skipped: the reranker (too little time left); the meaning-based search (embedding the question failed).');
});

test('dates, versions and content types', () => {
  assert.equal(format.asOfLine('2026-12-01T08:00:00Z', 12), 'As of 2026-12-01 08:00 UTC, snapshot 12');
  assert.equal(format.versionLine('15.20', '2026-11-12'), 'Version 15.20, released 2026-11-12');
  assert.equal(format.versionLine('15.20', ''), 'Version 15.20');
  assert.equal(format.sourceNumber('S12'), 12);
  assert.ok(Number.isNaN(format.sourceNumber('X')));
  assert.equal(format.contentType('Notes.MD'), 'markdown');
  assert.equal(format.contentType('a.htm'), 'html');
  assert.equal(format.contentType('README'), 'text');
});
