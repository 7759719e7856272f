// One headless Debian chromium for a whole test file, a fresh browser context per test, and the
// Lighthouse-style checks every test ends with: no console errors, no failed requests, no response
// >= 400 except the ones a test expects, every visible control named, a CSP header on the page and no
// inline script.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { lowContrastText } from './contrast.mjs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM_ARGS = ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// playwright's launch() gives chromium a fresh temporary user-data-dir of its own and removes it on close.
export async function launchBrowser(chromium, executablePath) {
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, headless: true, timeout: 60000 });
  return { browser, close: () => browser.close() };
}

export function screenshotDir() {
  const out = process.env.ATTEST_E2E_OUT || join(tmpdir(), 'attest-web-e2e');
  const dir = join(out, 'screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}

export const screenshots = [];

// Removes the screenshots of an earlier run, so the folder shows this run's states only.
export function clearScreenshots() {
  const dir = screenshotDir();
  for (const n of readdirSync(dir)) if (n.endsWith('.png')) rmSync(join(dir, n), { force: true });
}

export async function screenshot(page, name) {
  const path = join(screenshotDir(), `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  screenshots.push(path);
  return path;
}

// Opens a page in a fresh context and records what the checks look at. `expect(status, re)` allows
// one response (status and URL path) a test provokes on purpose.
export async function openPage(browser, baseUrl, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  context.setDefaultTimeout(Number(process.env.ATTEST_E2E_TIMEOUT_MS || 15000));
  const page = await context.newPage();
  const rec = { console: [], pageErrors: [], failed: [], bad: [], dialogs: [], allowed: [], documents: [], urls: [] };
  page.on('console', (m) => { if (m.type() === 'error') rec.console.push({ text: m.text(), url: m.location()?.url || '' }); });
  page.on('pageerror', (e) => rec.pageErrors.push(String(e)));
  page.on('requestfailed', (r) => rec.failed.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  page.on('request', (r) => rec.urls.push(r.url()));
  page.on('response', (r) => {
    if (r.status() >= 400) rec.bad.push({ status: r.status(), url: r.url(), method: r.request().method() });
    if (r.request().resourceType() === 'document') rec.documents.push(r);
  });
  page.on('dialog', (d) => { rec.dialogs.push(`${d.type()}: ${d.message()}`); d.dismiss().catch(() => {}); });
  page.rec = rec;
  page.expectResponse = (status, pathRe) => rec.allowed.push({ status, pathRe });
  page.baseUrl = baseUrl;
  return { context, page };
}

function allowedResponse(rec, r) {
  return rec.allowed.some((a) => a.status === r.status && a.pathRe.test(new URL(r.url).pathname));
}

// Accessible names as chromium's accessibility tree (Playwright's aria snapshot) computes them: any
// visible interactive role without a name is a failure.
const CONTROL_ROLES = 'button|checkbox|combobox|link|listbox|menuitem|radio|searchbox|slider|spinbutton|switch|tab|textbox';
export async function unnamedControls(page) {
  const snap = await page.locator('body').ariaSnapshot();
  const re = new RegExp(`^\\s*- (${CONTROL_ROLES})(\\s*$|\\s*\\[|:)`);
  return snap.split('\n').filter((l) => re.test(l));
}

// The checks every test ends with.
export async function finishPage(page, { context } = {}) {
  const rec = page.rec;
  // Requests still in flight when the test ends are not failures; let the page settle first.
  await page.waitForLoadState('networkidle', { timeout: 5000 }).catch(() => {});
  const problems = [];
  const allowedConsole = (c) => /Failed to load resource: the server responded with a status of (\d+)/.test(c.text) &&
    rec.allowed.some((a) => c.text.includes(`status of ${a.status}`) && c.url && a.pathRe.test(new URL(c.url).pathname));
  for (const c of rec.console) if (!allowedConsole(c)) problems.push(`console error: ${c.text} (${c.url})`);
  for (const e of rec.pageErrors) problems.push(`uncaught exception: ${e}`);
  for (const f of rec.failed) problems.push(`failed request: ${f}`);
  for (const b of rec.bad) if (!allowedResponse(rec, b)) problems.push(`response ${b.status}: ${b.method} ${b.url}`);
  for (const d of rec.dialogs) problems.push(`unexpected dialog: ${d}`);
  for (const u of rec.urls) if (/att_[A-Za-z0-9_-]{8,}/.test(u)) problems.push(`a key appears in a URL: ${u}`);
  // Same origin only: no CDN, no external font or favicon (the page works offline).
  const origin = new URL(page.baseUrl).origin;
  for (const u of rec.urls) {
    if (!/^(data|blob):/.test(u) && new URL(u).origin !== origin) problems.push(`a request leaves the origin: ${u}`);
  }
  const unnamed = await unnamedControls(page);
  for (const l of unnamed) problems.push(`control without an accessible name: ${l.trim()}`);
  // A form field needs a label of its own (a file input's button text does not name the field).
  const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
    .filter((e) => e.getClientRects().length > 0 && !(e.labels && e.labels.length) &&
      !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby'))
    .map((e) => e.outerHTML.slice(0, 120)));
  for (const l of unlabelled) problems.push(`form field without a label: ${l}`);
  for (const c of await lowContrastText(page)) problems.push(`low contrast: ${c}`);
  // The page's own document must carry a CSP that forbids inline script, and hold no inline script.
  const doc = rec.documents.find((r) => r.url().startsWith(page.baseUrl));
  if (!doc) problems.push('no document response from the server was seen');
  else {
    const csp = (await doc.allHeaders())['content-security-policy'] || '';
    if (!csp) problems.push(`no Content-Security-Policy header on ${doc.url()}`);
    const scriptSrc = (csp.split(';').map((s) => s.trim()).find((s) => s.startsWith('script-src')) ||
      csp.split(';').map((s) => s.trim()).find((s) => s.startsWith('default-src')) || '');
    if (csp && (!scriptSrc || /'unsafe-inline'|'unsafe-eval'|\*/.test(scriptSrc))) {
      problems.push(`CSP does not forbid inline script: ${csp}`);
    }
  }
  const inline = await page.evaluate(() => {
    const out = [];
    for (const s of document.querySelectorAll('script')) if (!s.src) out.push(`inline <script>: ${s.textContent.slice(0, 80)}`);
    for (const el of document.querySelectorAll('*')) {
      for (const a of el.attributes) if (/^on/i.test(a.name)) out.push(`inline handler ${a.name} on <${el.tagName.toLowerCase()}>`);
    }
    for (const a of document.querySelectorAll('a[href]')) {
      const h = a.getAttribute('href');
      if (!/^(https?:|\/|#)/i.test(h)) out.push(`link to a non-http(s) target: ${h}`);
    }
    return out;
  });
  problems.push(...inline);
  if (context) await context.close();
  assert.deepEqual(problems, [], `page checks failed:\n  ${problems.join('\n  ')}`);
}

const tid = (id) => `[data-testid="${id}"]`;
export { tid };

// Signs in through the form, as a person would.
export async function signIn(page, key) {
  await page.goto(page.baseUrl + '/');
  await page.locator(tid('signin-key')).fill(key);
  await page.locator(tid('signin-submit')).click();
  await page.locator(tid('whoami')).waitFor({ state: 'visible' });
}

// Waits for the answer to a question sent after `t0` (the page's performance.now()): the page's
// 'attest:answer-done' mark, or the stage line's error state.
export async function waitForAnswer(page, t0, timeout = 30000) {
  await page.waitForFunction((since) => {
    const s = document.querySelector('[data-testid="stage"]');
    return performance.getEntriesByName('attest:answer-done').some((e) => e.startTime > since) ||
      (s && s.getAttribute('data-state') === 'error');
  }, t0, { timeout });
  const stage = await page.locator(tid('stage')).textContent();
  assert.match(stage.trim(), /^Done in \d+/, `the answer failed: ${stage}`);
}

// Asks through the question box (Enter submits) and waits for the answer to be done.
export async function ask(page, question, { timeout = 30000 } = {}) {
  const turns = await page.locator(tid('turn')).count();
  await page.locator(tid('ask-input')).fill(question);
  const t0 = await page.evaluate(() => performance.now());
  await page.locator(tid('ask-input')).press('Enter');
  await page.locator(tid('turn')).nth(turns).waitFor({ state: 'visible', timeout });
  await waitForAnswer(page, t0, timeout);
  return page.locator(tid('turn')).nth(turns);
}

// Submits the search form and waits for the results of this search (not the previous ones) to show.
export async function submitSearch(page) {
  await page.evaluate(() => {
    for (const e of document.querySelectorAll('[data-testid="search-result"], [data-testid="search-empty"]')) e.__attestStale = true;
  });
  const response = page.waitForResponse((r) => r.url().endsWith('/v1/search') && r.request().method() === 'POST');
  await page.locator(tid('search-submit')).click();
  assert.equal((await response).status(), 200);
  await page.waitForFunction(() => {
    const els = [...document.querySelectorAll('[data-testid="search-result"], [data-testid="search-empty"]')];
    return els.length > 0 && els.every((e) => !e.__attestStale);
  });
  return page.locator(tid('search-result'));
}
