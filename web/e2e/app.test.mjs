// The page at / of a real `attest serve`, driven in Debian's chromium (issue 13, item 7). Selectors
// follow the page's DOM contract (data-testid, docs/web.md). Run by CTest (web_e2e):
//   ATTEST_BINARY=build/attest ATTEST_E2E_OUT=build/web-e2e node web/e2e/app.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requirePrerequisites } from './lib/prereq.mjs';

const env = requirePrerequisites(['node_modules', 'chromium', 'attest']);
const { chromium } = await import('playwright-core');
const { api, createKey, startServe } = await import('./lib/attest.mjs');
const { corpus, HOSTILE_ID } = await import('./lib/corpus.mjs');
const { startFakeLlm } = await import('./lib/fake_llm.mjs');
const { ask, clearScreenshots, finishPage, launchBrowser, openPage, screenshot, screenshots, signIn, submitSearch, tid,
  waitForAnswer } =
  await import('./lib/browser.mjs');

const PORT_QUESTION = 'What port does the Falcon server listen on by default?';
const RETENTION_QUESTION = 'How long are queued messages kept by default?';
const UNANSWERED_QUESTION = 'Who founded the Falcon project?';

let tmp, server, llm, chrome, keys, dataDir;
let failed = false;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attest-web-e2e-'));
  const data = join(tmp, 'data');
  keys = {
    admin: createKey(env.attest, data, { user: 'alice', admin: true }),
    reader: createKey(env.attest, data, { user: 'bob' }),
    revoked: createKey(env.attest, data, { user: 'carol' }),
  };
  dataDir = data;
  llm = await startFakeLlm();
  server = await startServe(env.attest, data, {
    globalArgs: ['--llm-url', llm.url, '--llm-model', 'e2e-writer'],
    serveArgs: ['--group-cache-ttl-ms', '200'],  // a revoked key is refused within 0.2 s
  });
  const seeded = await api(server.url, keys.admin, 'POST', '/v1/documents:batch', { documents: corpus });
  assert.equal(seeded.status, 200, seeded.text);
  assert.equal(seeded.json.added, corpus.length);
  chrome = await launchBrowser(chromium, env.chromium);
  clearScreenshots();
});

after(async () => {
  await chrome?.close();
  await server?.stop();
  await llm?.stop();
  if (failed && server) console.log(`attest serve's log:\n${server.log()}`);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  for (const p of screenshots) console.log(`screenshot: ${p}`);
});

// A test body with a fresh context; the page checks run at its end.
function pageTest(name, options, body) {
  test(name, async () => {
    const { context, page } = await openPage(chrome.browser, server.url, options);
    try {
      await body(page);
      await finishPage(page, { context });
    } catch (e) {
      failed = true;
      await screenshot(page, `FAILED-${name.replace(/[^a-z0-9]+/gi, '-')}`).catch(() => {});
      await context.close().catch(() => {});
      throw e;
    }
  });
}

// A control inside a closed <details> (Options, Filters) is opened before use.
async function reveal(page, id) {
  const el = page.locator(tid(id));
  if (!(await el.isVisible())) {
    const summary = page.locator(`details:has(${tid(id)}) > summary`);
    if (await summary.count()) await summary.first().click();
  }
  await el.waitFor({ state: 'visible' });
  return el;
}

async function setField(page, id, value) {
  const el = await reveal(page, id);
  if ((await el.evaluate((n) => n.tagName)) === 'SELECT') await el.selectOption(value);
  else await el.fill(value);
}

async function search(page, query) {
  await page.locator(tid('nav-search')).click();
  await page.locator(tid('search-input')).fill(query);
  return submitSearch(page);
}

async function texts(locator) {
  return (await locator.allTextContents()).map((t) => t.trim());
}

function luminance(rgb) {
  const [r, g, b] = (rgb.match(/[\d.]+/g) || []).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

async function background(page) {
  return page.evaluate(() => {
    for (const el of [document.querySelector('attest-app'), document.body, document.documentElement]) {
      const c = getComputedStyle(el).backgroundColor;
      if (c && c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') return c;
    }
    return 'rgb(255, 255, 255)';
  });
}

pageTest('sign-in is required, a bad key is refused, a good key opens the app', {}, async (page) => {
  page.expectResponse(401, /^\/v1\/me$/);
  await page.goto(server.url + '/');
  await page.locator(tid('signin-form')).waitFor({ state: 'visible' });
  assert.equal(await page.locator(tid('ask-form')).isVisible(), false, 'the app shows before sign-in');
  assert.equal(await page.locator(tid('signin-key')).getAttribute('type'), 'password');

  await page.locator(tid('signin-key')).fill('att_000000000000_not-a-key-at-all');
  await page.locator(tid('signin-submit')).click();
  await page.waitForFunction(() => /\S/.test(document.querySelector('[data-testid="signin-error"]')?.textContent || ''));
  assert.ok(await page.locator(tid('signin-error')).isVisible());
  assert.match(await page.locator(tid('signin-error')).textContent(), /401|refused|invalid|not accepted/i);
  assert.equal(await page.locator(tid('whoami')).count(), 0);

  await page.locator(tid('signin-key')).fill(keys.reader);
  await page.locator(tid('signin-submit')).click();
  await page.locator(tid('whoami')).waitFor({ state: 'visible' });
  assert.match(await page.locator(tid('whoami')).textContent(), /bob/);
  await page.locator(tid('ask-form')).waitFor({ state: 'visible' });
  assert.equal(await page.locator(tid('nav-admin')).count(), 0, 'a reader sees the admin view');
  assert.equal(await page.evaluate(() => sessionStorage.getItem('attest.key')), keys.reader);
  assert.ok(!page.url().includes(keys.reader), 'the key is in the URL');

  // The key lives in the session: a reload keeps the app, signing out forgets it.
  await page.reload();
  await page.locator(tid('whoami')).waitFor({ state: 'visible' });
  await page.locator(tid('signout')).click();
  await page.locator(tid('signin-form')).waitFor({ state: 'visible' });
  assert.equal(await page.evaluate(() => sessionStorage.getItem('attest.key')), null);
});

pageTest('ask: stage line, markers, source cards, the quote on hover and on focus', {}, async (page) => {
  await signIn(page, keys.reader);
  const requests = [];
  page.on('request', (r) => { if (r.url().includes('/v1/')) requests.push(r); });
  // Every text the stage line shows while the answer streams.
  await page.evaluate(() => {
    window.__stages = [];
    const stage = document.querySelector('[data-testid="stage"]');
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'characterData') window.__stages.push(stage.textContent.trim());
        for (const n of r.addedNodes) if (n.textContent.trim()) window.__stages.push(n.textContent.trim());
      }
    }).observe(stage, { childList: true, characterData: true, subtree: true });
  });
  const turn = await ask(page, PORT_QUESTION);
  const stages = await page.evaluate(() => window.__stages);
  assert.ok(stages.some((t) => /^Searching: \S/.test(t)), `no "Searching: <sub-queries>" stage in ${JSON.stringify(stages)}`);
  assert.ok(stages.some((t) => /^Reading \d+ sources?$/.test(t)), `no "Reading N sources" stage in ${JSON.stringify(stages)}`);
  assert.match(stages[stages.length - 1], /^Done in \d+ ms$/);

  // The question went out with the bearer header and the answer stream was asked for.
  const sent = requests.find((r) => r.method() === 'POST' && /\/v1\/(answer|threads\/[^/]+\/messages)$/.test(r.url()));
  assert.ok(sent, 'no answer request was sent');
  assert.equal((await sent.allHeaders()).authorization, `Bearer ${keys.reader}`);
  assert.match((await sent.allHeaders()).accept || '', /text\/event-stream/);

  const stage = page.locator(tid('stage'));
  assert.equal(await stage.getAttribute('role'), 'status');
  assert.equal(await stage.getAttribute('aria-live'), 'polite');

  const sentences = turn.locator(tid('sentence'));
  assert.ok(await sentences.count() >= 1, 'no sentence');
  for (const state of await sentences.evaluateAll((els) => els.map((e) => e.dataset.state))) {
    assert.ok(['verified', 'partial', 'replaced', 'retracted'].includes(state), `sentence state ${state}`);
  }
  assert.match(await turn.locator(tid('answer')).textContent(), /8443/);

  const markers = turn.locator(tid('marker'));
  assert.ok(await markers.count() >= 1, 'no marker');
  const marker = markers.first();
  assert.match((await marker.textContent()).trim(), /^\[\d+\]$/);
  assert.equal(await marker.evaluate((e) => e.tagName), 'BUTTON');
  const sourceId = await marker.getAttribute('data-source');
  assert.match(sourceId, /^S\d+$/);

  const cards = turn.locator(tid('source-card'));
  assert.ok(await cards.count() >= 1, 'no source card');
  const cited = await cards.evaluateAll((els) => els.map((e) => e.dataset.cited));
  assert.equal(cited[0], 'true', 'cited sources come first');
  assert.deepEqual(cited, [...cited].sort().reverse(), `cited first, then the other evidence: ${cited}`);
  const visibleCards = await cards.evaluateAll((els) => els.filter((e) => e.getClientRects().length > 0).length);
  if (await cards.count() > 4) {
    assert.ok(visibleCards <= 4, `${visibleCards} cards shown before "more"`);
    const more = turn.locator(tid('sources-more'));
    await more.waitFor({ state: 'visible' });
    assert.match(await more.textContent(), new RegExp(`${(await cards.count()) - visibleCards} more source`));
  }
  const citedCard = turn.locator(`${tid('source-card')}[data-source-id="${sourceId}"]`);
  assert.equal(await citedCard.count(), 1, `no card for ${sourceId}`);
  assert.match(await citedCard.locator(tid('source-snippet')).textContent(), /8443/);
  const link = citedCard.locator(tid('source-link'));
  if (await link.count()) assert.match(await link.getAttribute('href'), /^https:\/\//);
  assert.match(await turn.locator(tid('as-of')).textContent(), /As of/i);

  // Hover: the verbatim quote, with its source's title, site and date.
  await marker.hover();
  const popover = page.locator(tid('quote-popover'));
  await popover.waitFor({ state: 'visible' });
  assert.equal(await popover.getAttribute('role'), 'tooltip');
  const describedBy = await marker.getAttribute('aria-describedby');
  assert.ok(describedBy && (await popover.getAttribute('id')) === describedBy, 'aria-describedby names the popover');
  const quote = (await popover.locator(tid('quote-text')).textContent()).trim();
  assert.ok(quote.length > 10, `quote "${quote}"`);
  const sourceDoc = corpus.find((d) => d.text.includes(quote));
  assert.ok(sourceDoc, `the quote is not verbatim from a document: "${quote}"`);
  assert.equal((await popover.locator(tid('quote-title')).textContent()).trim(), sourceDoc.title);
  assert.match(await popover.locator(tid('quote-site')).textContent(), new RegExp(sourceDoc.site.replace(/\./g, '\\.')));
  assert.match(await popover.locator(tid('quote-date')).textContent(), new RegExp(sourceDoc.published));
  await screenshot(page, 'answer-hover-quote');
  await page.keyboard.press('Escape');
  await popover.waitFor({ state: 'hidden' });

  // Focus (keyboard users) shows the same quote.
  await page.mouse.move(0, 0);
  await marker.focus();
  await popover.waitFor({ state: 'visible' });
  assert.equal((await popover.locator(tid('quote-text')).textContent()).trim(), quote);
  await page.keyboard.press('Escape');
  await popover.waitFor({ state: 'hidden' });

  assert.ok(luminance(await background(page)) > 0.5, 'the light scheme has a light background');

  if (await turn.locator(tid('sources-more')).count()) {
    await turn.locator(tid('sources-more')).click();
    const shown = await cards.evaluateAll((els) => els.filter((e) => e.getClientRects().length > 0).length);
    assert.equal(shown, await cards.count(), '"more sources" did not show the rest');
  }
});

pageTest('the resolved version and its release date are shown', {}, async (page) => {
  await signIn(page, keys.reader);
  const turn = await ask(page, 'What port does the latest Falcon version listen on by default?');
  const resolved = turn.locator(tid('resolved-version'));
  await resolved.waitFor({ state: 'visible' });
  assert.match(await resolved.textContent(), /version 2\b.*released 2025-05-20/i);
  assert.match(await turn.locator(tid('answer')).textContent(), /8443/);
});

pageTest('a key revoked during the session returns the page to sign-in', {}, async (page) => {
  await signIn(page, keys.revoked);
  await ask(page, RETENTION_QUESTION);
  const keyId = keys.revoked.split('_')[1];
  execFileSync(env.attest, ['--data', dataDir, 'keys', 'revoke', keyId], { stdio: 'ignore' });
  await page.waitForTimeout(400);  // the server's group cache TTL (--group-cache-ttl-ms 200)
  page.expectResponse(401, /^\/v1\//);
  await page.locator(tid('ask-input')).fill(PORT_QUESTION);
  await page.locator(tid('ask-input')).press('Enter');
  await page.locator(tid('signin-form')).waitFor({ state: 'visible' });
  assert.equal(await page.evaluate(() => sessionStorage.getItem('attest.key')), null, 'the refused key is kept');
});

pageTest('a sentence its passage does not support is withdrawn visibly (LLM writer)', {}, async (page) => {
  await signIn(page, keys.reader);
  await setField(page, 'ask-writer', 'llm');
  const before = llm.requests.length;
  const turn = await ask(page, RETENTION_QUESTION);
  assert.ok(llm.requests.length > before, 'the chat server was not asked');
  assert.ok(llm.requests.slice(before).every((r) => r.remote === '127.0.0.1' || r.remote === '::ffff:127.0.0.1'));

  const retracted = turn.locator(`${tid('sentence')}[data-state="retracted"]`);
  await retracted.first().waitFor({ state: 'visible' });
  assert.match(await retracted.first().textContent(), /penguins/, 'the withdrawn sentence stays visible');
  const struck = await retracted.first().evaluate((el) => [el, ...el.querySelectorAll('*'), el.parentElement]
    .some((e) => e && (/line-through/.test(getComputedStyle(e).textDecorationLine) || ['DEL', 'S'].includes(e.tagName))));
  assert.ok(struck, 'the withdrawn sentence is not struck through');
  const reason = turn.locator(tid('retraction-reason')).first();
  await reason.waitFor({ state: 'visible' });
  assert.match(await reason.textContent(), /\w{4,}/);
  const kept = turn.locator(`${tid('sentence')}[data-state="verified"], ${tid('sentence')}[data-state="replaced"], ${tid('sentence')}[data-state="partial"]`);
  assert.ok(await kept.count() >= 1, 'the supported sentence was not kept');
  assert.match(await kept.first().textContent(), /7 days/);
  await screenshot(page, 'answer-retraction');
});

pageTest('a question the corpus does not answer renders the ranked results and the reason', {}, async (page) => {
  await signIn(page, keys.reader);
  const turn = await ask(page, UNANSWERED_QUESTION);
  const fallback = turn.locator(tid('fallback'));
  await fallback.waitFor({ state: 'visible' });
  assert.match(await fallback.locator(tid('fallback-reason')).textContent(), /[a-z]{3,} [a-z]{3,}/i);
  const items = fallback.locator(tid('result-item'));
  assert.ok(await items.count() >= 1, 'no ranked results');
  assert.match(await items.first().textContent(), /Falcon/);
  assert.equal(await turn.locator(tid('marker')).count(), 0);
  await screenshot(page, 'fallback-results');
});

pageTest('filters change what search and ask use', {}, async (page) => {
  await signIn(page, keys.reader);
  let results = await search(page, 'Falcon listening port');
  const all = await texts(results.locator(tid('result-title')));
  assert.ok(all.includes('Falcon 1 configuration') && all.includes('Falcon 2 configuration'), `unfiltered: ${all}`);

  await setField(page, 'filter-version', '1');
  results = await search(page, 'Falcon listening port');
  const v1 = await texts(results.locator(tid('result-version')));
  assert.ok(v1.length >= 1 && v1.every((v) => /\b1\b/.test(v)), `version 1: ${v1}`);
  assert.ok(!(await texts(results.locator(tid('result-title')))).includes('Falcon 2 configuration'));

  await setField(page, 'filter-version', '');
  await setField(page, 'filter-source-type', 'release_notes');
  results = await search(page, 'Falcon listening port');
  assert.deepEqual(await texts(results.locator(tid('result-title'))), ['Falcon 2.0 release notes']);

  await setField(page, 'filter-source-type', '');
  await setField(page, 'filter-site', 'docs.falcon.example');
  await setField(page, 'filter-date-from', '2025-01-01');
  results = await search(page, 'Falcon listening port');
  const dates = await texts(results.locator(tid('result-date')));
  const sites = await texts(results.locator(tid('result-site')));
  assert.ok(dates.length >= 1 && dates.every((d) => (d.match(/\d{4}-\d{2}-\d{2}/) || [''])[0] >= '2025-01-01'), `dates: ${dates}`);
  assert.ok(sites.every((s) => s.includes('docs.falcon.example')), `sites: ${sites}`);
  await screenshot(page, 'search-with-filters');

  // The same filters apply to answers: version 1 answers with version 1's port.
  await setField(page, 'filter-site', '');
  await setField(page, 'filter-date-from', '');
  await setField(page, 'filter-version', '1');
  await page.locator(tid('nav-ask')).click();
  const requestBody = page.waitForRequest((r) => r.method() === 'POST' && /\/v1\/(answer|threads\/[^/]+\/messages)$/.test(r.url()));
  const turn = await ask(page, PORT_QUESTION);
  assert.deepEqual(JSON.parse((await requestBody).postData()).filters?.versions, ['1']);
  const answer = await turn.locator(tid('answer')).textContent();
  assert.match(answer, /7000/);
  assert.doesNotMatch(answer, /8443/);
});

pageTest('search highlights the query words and explains the ranking on demand', {}, async (page) => {
  await signIn(page, keys.reader);
  let results = await search(page, 'retention queued messages');
  assert.ok(await results.count() >= 1);
  const marks = await texts(results.first().locator(`${tid('result-snippet')} mark`));
  assert.ok(marks.length >= 1, 'no highlight');
  for (const m of marks) assert.match(m.toLowerCase(), /retention|queued|messages|message|queue/, `highlight "${m}"`);
  assert.equal(await results.first().locator(tid('explain')).count(), 0, 'explain shown unasked');

  await (await reveal(page, 'search-explain')).check();
  results = await search(page, 'retention queued messages');
  const explain = results.first().locator(tid('explain'));
  await explain.waitFor({ state: 'visible' });
  assert.match(await explain.textContent(), /bm25/i);
});

pageTest('feedback on a sentence and on a source is posted and acknowledged', {}, async (page) => {
  await signIn(page, keys.reader);
  const turn = await ask(page, PORT_QUESTION);
  const sentence = turn.locator(tid('sentence')).first();
  let button = sentence.locator(tid('feedback-button'));
  if (!(await button.count())) button = turn.locator(`${tid('answer')} ${tid('feedback-button')}`);
  assert.match(await button.first().getAttribute('aria-label'), /Report a problem/);
  await button.first().click();
  const dialog = page.locator(tid('feedback-dialog'));
  await dialog.waitFor({ state: 'visible' });
  await dialog.locator('input[name="kind"][value="unsupported"]').check();
  await dialog.locator(tid('feedback-comment')).fill('The release notes say this too.');
  const posted = page.waitForResponse((r) => r.url().endsWith('/v1/feedback') && r.request().method() === 'POST');
  await dialog.locator(tid('feedback-submit')).click();
  const response = await posted;
  assert.equal(response.status(), 201, 'the server did not record the feedback');
  const body = JSON.parse(response.request().postData());
  assert.match(body.answer_id, /^ans_/);
  assert.match(body.claim_id, /^c\d+$/);
  assert.equal(body.kind, 'unsupported');
  assert.equal(body.comment, 'The release notes say this too.');
  assert.match((await response.json()).feedback_id, /\S/);
  const ack = page.locator(tid('feedback-ack'));
  await ack.waitFor({ state: 'visible' });
  assert.match(await ack.textContent(), /Thanks/);
  assert.notEqual(await ack.getAttribute('data-state'), 'error');
  await dialog.waitFor({ state: 'hidden' }).catch(() => {});

  // On a source card.
  await page.keyboard.press('Escape');
  const card = turn.locator(tid('source-card')).first();
  await card.locator(tid('feedback-button')).click();
  await dialog.waitFor({ state: 'visible' });
  await dialog.locator('input[name="kind"][value="stale"]').check();
  const posted2 = page.waitForResponse((r) => r.url().endsWith('/v1/feedback') && r.request().method() === 'POST');
  await dialog.locator(tid('feedback-submit')).click();
  const response2 = await posted2;
  assert.equal(response2.status(), 201);
  const body2 = JSON.parse(response2.request().postData());
  assert.equal(body2.source_id, await card.getAttribute('data-source-id'));
  assert.equal(body2.claim_id, '');
  assert.equal(body2.kind, 'stale');
});

pageTest('a follow-up in the same thread shows the standalone question', {}, async (page) => {
  await signIn(page, keys.reader);
  await ask(page, PORT_QUESTION);
  const second = await ask(page, 'And in version 1?');
  assert.equal(await second.getAttribute('data-turn'), '2');
  const standalone = second.locator(tid('standalone'));
  await standalone.waitFor({ state: 'visible' });
  const text = await standalone.textContent();
  assert.match(text, /Understood as/);
  assert.match(text, /port/i, `the standalone question does not carry the earlier subject: ${text}`);
  assert.match(await second.locator(tid('answer')).textContent(), /7000/);
  assert.equal(await page.locator(tid('turn')).count(), 2);
  await page.locator(tid('new-thread')).click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="turn"]').length === 0);
});

pageTest('the admin view: list with paging, upload, re-ingest, delete (admin keys only)', {}, async (page) => {
  await signIn(page, keys.admin);
  assert.match(await page.locator(tid('whoami')).textContent(), /alice/);
  await page.locator(tid('nav-admin')).click();
  await page.locator(tid('admin')).waitFor({ state: 'visible' });
  await page.locator(tid('doc-row')).first().waitFor({ state: 'visible' });
  const pageText = (await page.locator(tid('docs-page')).textContent()).trim();
  assert.match(pageText, new RegExp(`of ${corpus.length}\\b`), pageText);
  const firstIds = await page.locator(tid('doc-row')).evaluateAll((rows) => rows.map((r) => r.dataset.docId));
  assert.ok(firstIds.length >= 1 && firstIds.length < corpus.length, `page of ${firstIds.length}`);
  await screenshot(page, 'admin-documents');

  await page.locator(tid('docs-next')).click();
  await page.waitForFunction((t) => document.querySelector('[data-testid="docs-page"]').textContent.trim() !== t, pageText);
  const nextIds = await page.locator(tid('doc-row')).evaluateAll((rows) => rows.map((r) => r.dataset.docId));
  assert.ok(nextIds.length >= 1 && nextIds.every((id) => !firstIds.includes(id)), 'the next page repeats rows');
  await page.locator(tid('docs-prev')).click();
  await page.waitForFunction((t) => document.querySelector('[data-testid="docs-page"]').textContent.trim() === t, pageText);

  // The shared filters narrow the list (applied when the field changes).
  const docsIds = corpus.filter((d) => d.source_type === 'docs').map((d) => d.id).sort();
  await setField(page, 'filter-source-type', 'docs');
  await page.locator(tid('filter-source-type')).press('Tab');
  await page.waitForFunction((n) => new RegExp(`of ${n}\\b`).test(document.querySelector('[data-testid="docs-page"]').textContent), docsIds.length);
  assert.deepEqual((await page.locator(tid('doc-row')).evaluateAll((rows) => rows.map((r) => r.dataset.docId))).sort(), docsIds);
  await setField(page, 'filter-source-type', '');
  await page.locator(tid('filter-source-type')).press('Tab');
  await page.waitForFunction((t) => document.querySelector('[data-testid="docs-page"]').textContent.trim() === t, pageText);

  // Upload a file.
  await page.locator(tid('upload-file')).setInputFiles({
    name: 'kestrel-runbook.md', mimeType: 'text/markdown',
    buffer: Buffer.from('# Kestrel runbook\n\nThe Kestrel relay restarts itself after 45 seconds of silence.\n'),
  });
  await page.locator(tid('upload-id')).fill('kestrel-runbook');
  const uploaded = page.waitForResponse((r) => /\/v1\/documents$/.test(r.url()) && r.request().method() === 'POST');
  await page.locator(tid('upload-submit')).click();
  assert.ok((await uploaded).status() < 300, 'the upload was refused');
  await page.waitForFunction(() => /\S/.test(document.querySelector('[data-testid="admin-status"]')?.textContent || ''));
  assert.notEqual(await page.locator(tid('admin-status')).getAttribute('data-state'), 'error');
  const stored = await api(server.url, keys.admin, 'GET', '/v1/documents/kestrel-runbook');
  assert.equal(stored.status, 200, stored.text);
  assert.match(stored.json.text, /45 seconds of silence/);

  // Find its row (the list may be on any page), re-ingest it from another file, then delete it.
  const row = page.locator(`${tid('doc-row')}[data-doc-id="kestrel-runbook"]`);
  let shown = await row.waitFor({ state: 'visible', timeout: 3000 }).then(() => true, () => false);
  for (let i = 0; i < 5 && !shown && !(await page.locator(tid('docs-next')).isDisabled()); i++) {
    const before = (await page.locator(tid('docs-page')).textContent()).trim();
    await page.locator(tid('docs-next')).click();
    await page.waitForFunction((t) => document.querySelector('[data-testid="docs-page"]').textContent.trim() !== t, before);
    shown = (await row.count()) > 0;
  }
  await row.waitFor({ state: 'visible' });
  const chooser = page.waitForEvent('filechooser');
  await row.locator(tid('doc-reingest')).click();
  const replaced = page.waitForResponse((r) => /\/v1\/documents$/.test(r.url()) && r.request().method() === 'POST');
  await (await chooser).setFiles({ name: 'kestrel-v2.md', mimeType: 'text/markdown',
    buffer: Buffer.from('# Kestrel runbook\n\nThe Kestrel relay restarts itself after 60 seconds of silence.\n') });
  assert.ok((await replaced).status() < 300, 're-ingest refused');
  const after = await api(server.url, keys.admin, 'GET', '/v1/documents/kestrel-runbook');
  assert.match(after.json.text, /60 seconds of silence/);

  await row.locator(tid('doc-delete')).click();
  const confirm = page.locator(tid('confirm-dialog'));
  await confirm.waitFor({ state: 'visible' });
  const deleted = page.waitForResponse((r) => r.url().includes('/v1/documents/kestrel-runbook') && r.request().method() === 'DELETE');
  await confirm.locator(tid('confirm-yes')).click();
  assert.ok((await deleted).status() < 300);
  await row.waitFor({ state: 'detached' });
  assert.equal((await api(server.url, keys.admin, 'GET', '/v1/documents/kestrel-runbook')).status, 404);
});

pageTest('a document holding <script>, <img onerror> and javascript: links renders as text', {}, async (page) => {
  await signIn(page, keys.reader);
  const results = await search(page, 'Sparrow dashboard');
  const hostile = results.filter({ hasText: 'Sparrow dashboard note' }).first();
  await hostile.waitFor({ state: 'visible' });
  const snippet = await hostile.locator(tid('result-snippet')).textContent();
  assert.ok(snippet.includes('<script>window.__pwned=1</script>'), `the script is not shown as text: ${snippet}`);

  await page.locator(tid('nav-ask')).click();
  const turn = await ask(page, 'What does the Sparrow dashboard show?');
  const card = turn.locator(tid('source-card')).filter({ hasText: 'Sparrow' }).first();
  await card.waitFor({ state: 'visible' });
  await screenshot(page, 'hostile-document-as-text');

  const found = await page.evaluate(() => ({
    pwned: typeof window.__pwned,
    scripts: document.querySelectorAll('attest-app script').length,
    images: document.querySelectorAll('attest-app img').length,
    handlers: [...document.querySelectorAll('attest-app *')].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length,
    jsLinks: [...document.querySelectorAll('a[href]')].filter((a) => !/^(https?:|\/|#)/i.test(a.getAttribute('href'))).length,
  }));
  assert.deepEqual(found, { pwned: 'undefined', scripts: 0, images: 0, handlers: 0, jsLinks: 0 });
  assert.deepEqual(page.rec.dialogs, []);
  assert.ok(corpus.some((d) => d.id === HOSTILE_ID));
});

// Keyboard only: Tab moves focus, Enter activates, Escape closes.
async function tabTo(page, id, max = 60) {
  for (let i = 0; i < max; i++) {
    const at = await page.evaluate(() => document.activeElement?.getAttribute('data-testid') || '');
    if (at === id) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${id} cannot be reached with Tab`);
}

pageTest('keyboard only: sign in, ask, read a quote, send feedback', {}, async (page) => {
  await page.goto(server.url + '/');
  await tabTo(page, 'signin-key', 20);
  await page.keyboard.type(keys.reader);
  await page.keyboard.press('Enter');
  await page.locator(tid('whoami')).waitFor({ state: 'visible' });

  await tabTo(page, 'ask-input');
  await page.keyboard.type(RETENTION_QUESTION);
  const t0 = await page.evaluate(() => performance.now());
  await page.keyboard.press('Enter');
  await waitForAnswer(page, t0);

  await tabTo(page, 'marker');
  const popover = page.locator(tid('quote-popover'));
  await popover.waitFor({ state: 'visible' });
  assert.match(await popover.locator(tid('quote-text')).textContent(), /7 days/);
  await page.keyboard.press('Escape');
  await popover.waitFor({ state: 'hidden' });

  await tabTo(page, 'feedback-button');
  await page.keyboard.press('Enter');
  const dialog = page.locator(tid('feedback-dialog'));
  await dialog.waitFor({ state: 'visible' });
  // Escape closes the dialog; open it again and send.
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await tabTo(page, 'feedback-button', 5).catch(async () => {
    await page.keyboard.press('Shift+Tab');
    await tabTo(page, 'feedback-button');
  });
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'visible' });
  for (let i = 0; i < 10; i++) {
    if (await page.evaluate(() => document.activeElement?.getAttribute('name') === 'kind')) break;
    await page.keyboard.press('Tab');
  }
  await page.keyboard.press('Space');
  assert.equal(await dialog.locator('input[name="kind"]:checked').count(), 1, 'no kind chosen by keyboard');
  await tabTo(page, 'feedback-submit', 10);
  const posted = page.waitForResponse((r) => r.url().endsWith('/v1/feedback') && r.request().method() === 'POST');
  await page.keyboard.press('Enter');
  assert.equal((await posted).status(), 201);
  await page.locator(tid('feedback-ack')).waitFor({ state: 'visible' });
});

pageTest('phone width, dark scheme', { viewport: { width: 390, height: 844 }, colorScheme: 'dark', hasTouch: true },
  async (page) => {
    await signIn(page, keys.reader);
    await ask(page, PORT_QUESTION);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow}px at 390px`);
    assert.ok(luminance(await background(page)) < 0.5, 'the dark scheme has a light background');
    await screenshot(page, 'phone-dark-answer');
  });
