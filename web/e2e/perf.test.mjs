// The page's performance bar (issue 13): on the PostgreSQL documentation served locally, the first
// sources are on screen within 300 ms and the whole verified extractive answer within 500 ms of
// pressing Enter, median of 20 questions, measured in the browser with the Performance API (the page
// marks attest:submit, attest:first-sources and attest:answer-done). Run by CTest (web_e2e_perf):
//   ATTEST_BINARY=build/attest node web/e2e/perf.test.mjs
// ATTEST_E2E_PG_DOCS names another folder of the same documentation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requirePrerequisites } from './lib/prereq.mjs';

const env = requirePrerequisites(['node_modules', 'chromium', 'attest']);
const PG_DOCS = process.env.ATTEST_E2E_PG_DOCS || '/usr/share/doc/postgresql-doc-15/html';
if (!existsSync(PG_DOCS)) {
  if (process.env.ATTEST_E2E_ALLOW_SKIP === '1') {
    console.log(`[web-e2e SKIPPED] no PostgreSQL documentation at ${PG_DOCS} (ATTEST_E2E_ALLOW_SKIP=1)`);
    process.exit(0);
  }
  console.error(`web e2e perf: no PostgreSQL documentation at ${PG_DOCS}: run scripts/bootstrap (postgresql-doc-15)`);
  process.exit(1);
}
const { chromium } = await import('playwright-core');
const { createKey, ingestFolder, startServe } = await import('./lib/attest.mjs');
const { finishPage, launchBrowser, openPage, signIn, tid } = await import('./lib/browser.mjs');

const FIRST_SOURCES_BAR_MS = 300;
const ANSWER_BAR_MS = 500;

// Everyday questions about PostgreSQL, written without looking at what the engine answers well.
const QUESTIONS = [
  'How do I create an index without blocking writes to the table?',
  'What does VACUUM FULL do differently from plain VACUUM?',
  'How can I see which queries are running right now?',
  'What is the default value of shared_buffers?',
  'How do I restore a database from a pg_dump archive?',
  'What isolation levels does PostgreSQL support?',
  'How do I add a column with a default value to an existing table?',
  'What does the work_mem setting control?',
  'How do I set up streaming replication to a standby server?',
  'What is the difference between json and jsonb?',
  'How can I find out why a query is slow?',
  'How do I grant read-only access to all tables in a schema?',
  'What does the autovacuum daemon do?',
  'How do I create a partitioned table by date range?',
  'What happens when a transaction ID wraps around?',
  'How do I write a function in PL/pgSQL that returns a table?',
  'What is a tablespace used for?',
  'How do I change the password of a database role?',
  'What does the max_connections parameter limit?',
  'How can I copy data from a CSV file into a table?',
];

let tmp, server, chrome, key;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attest-web-perf-'));
  const data = join(tmp, 'data');
  const ms = ingestFolder(env.attest, data, PG_DOCS, { sourceType: 'docs', version: '15', site: 'www.postgresql.org' });
  console.log(`ingested ${PG_DOCS} in ${(ms / 1000).toFixed(1)} s`);
  key = createKey(env.attest, data, { user: 'perf' });
  server = await startServe(env.attest, data);
  chrome = await launchBrowser(chromium, env.chromium);
});

after(async () => {
  await chrome?.close();
  await server?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

function summary(name, xs) {
  return `${name}: median ${median(xs).toFixed(0)} ms, p10 ${quantile(xs, 0.1).toFixed(0)}, ` +
    `p90 ${quantile(xs, 0.9).toFixed(0)}, min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)} (n=${xs.length})`;
}

// Asks one question in a new thread by pressing Enter. Returns the page's marks relative to
// pressing Enter, and the same two moments as a MutationObserver of the test sees them (the first
// source card in the DOM; the stage line turning to "Done in"), so the bar does not rest on the
// page's own marks alone: each figure is the later of the two.
async function timedAsk(page, question) {
  if (await page.locator(tid('new-thread')).isVisible()) await page.locator(tid('new-thread')).click();
  await page.evaluate(() => {
    performance.clearMarks();
    window.__e2e?.observer.disconnect();
    const seen = { card: null, done: null, left: false, enter: null };
    // The moment Enter is pressed (capture phase, before the page's own handler).
    window.__e2eKey ??= document.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && window.__e2e && window.__e2e.enter === null) window.__e2e.enter = performance.now();
    }, true) ?? true;
    seen.observer = new MutationObserver(() => {
      const now = performance.now();
      const turns = document.querySelectorAll('[data-testid="turn"]');
      const turn = turns[turns.length - 1];
      if (seen.card === null && turn?.querySelector('[data-testid="source-card"]')) seen.card = now;
      const stage = (document.querySelector('[data-testid="stage"]')?.textContent || '').trim();
      if (!/^Done in/.test(stage)) seen.left = true;
      else if (seen.left && seen.done === null) seen.done = now;
    });
    seen.observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    window.__e2e = seen;
  });
  await page.locator(tid('ask-input')).fill(question);
  await page.locator(tid('ask-input')).press('Enter');
  await page.waitForFunction(() => performance.getEntriesByName('attest:answer-done').length > 0 && window.__e2e.done !== null,
    null, { timeout: 30000 });
  return page.evaluate(() => {
    const at = (n) => performance.getEntriesByName(n, 'mark')[0]?.startTime;
    const seen = window.__e2e;
    // Times count from pressing Enter (or from the page's submit mark, if that were earlier).
    const submit = Math.min(at('attest:submit') ?? Infinity, seen.enter ?? Infinity);
    const sources = at('attest:first-sources');
    const done = at('attest:answer-done');
    seen.observer.disconnect();
    const turns = document.querySelectorAll('[data-testid="turn"]');
    const turn = turns[turns.length - 1];
    const outcome = turn?.querySelector('[data-testid="fallback"]') ? 'fallback' : 'answer';
    const states = [...(turn?.querySelectorAll('[data-testid="sentence"]') || [])].map((e) => e.dataset.state);
    return {
      submit,
      markSources: sources === undefined ? null : sources - submit,
      markDone: done - submit,
      seenSources: seen.card === null ? null : seen.card - submit,
      seenDone: seen.done - submit,
      outcome,
      enterSeen: seen.enter !== null,
      verified: states.filter((x) => x === 'verified' || x === 'partial').length,
      sentences: states.length,
    };
  });
}

test(`PostgreSQL docs: first sources <= ${FIRST_SOURCES_BAR_MS} ms, verified answer <= ${ANSWER_BAR_MS} ms (median of ${QUESTIONS.length})`, async () => {
  const { context, page } = await openPage(chrome.browser, server.url);
  await signIn(page, key);
  await timedAsk(page, 'How do I list all databases?');  // warms the page and the server; not counted
  const rows = [];
  for (const q of QUESTIONS) {
    const r = await timedAsk(page, q);
    assert.ok(r.enterSeen, 'the test did not see Enter pressed');
    assert.ok(r.markDone !== undefined && !Number.isNaN(r.markDone), 'the page set no attest:answer-done mark');
    r.sources = r.markSources === null ? r.seenSources : Math.max(r.markSources, r.seenSources ?? 0);
    r.done = Math.max(r.markDone, r.seenDone);
    rows.push({ q, ...r });
    const ms = (x) => (x === null ? '-' : x.toFixed(0)).padStart(4);
    console.log(`${ms(r.sources)} ms sources (mark ${ms(r.markSources)}, seen ${ms(r.seenSources)}), ` +
      `${ms(r.done)} ms done (mark ${ms(r.markDone)}, seen ${ms(r.seenDone)}), ` +
      `${r.outcome.padEnd(8)} ${r.verified}/${r.sentences} verified  ${q}`);
    if (r.outcome === 'answer') assert.ok(r.verified >= 1, `an answer without a verified sentence: ${q}`);
  }
  const firstSources = rows.filter((r) => r.sources !== null).map((r) => r.sources);
  const done = rows.map((r) => r.done);
  const answered = rows.filter((r) => r.outcome === 'answer').length;
  console.log(summary('first sources on screen', firstSources));
  console.log(summary('answer done', done));
  console.log(`answered ${answered} of ${rows.length}, fallback ${rows.length - answered}`);
  await finishPage(page, { context });
  assert.ok(firstSources.length >= QUESTIONS.length / 2, `only ${firstSources.length} answers showed sources`);
  assert.ok(median(firstSources) <= FIRST_SOURCES_BAR_MS, summary('first sources', firstSources));
  assert.ok(median(done) <= ANSWER_BAR_MS, summary('answer done', done));
});
