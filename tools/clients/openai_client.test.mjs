// openai_client (CTest): the official `openai` npm client against a real `attest serve`:
// models.list(), a non-streamed and a streamed chat.completions.create with the model
// `attest-extractive` (content with [n] markers and a Sources list; citations, search_results and
// url_citation annotations that match the sources /v1/answer's claims cite for the same question),
// the streamed text equal to the non-streamed one, and OpenAI-shaped errors: an unknown model is the
// client's NotFoundError, a bad key its AuthenticationError.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Checks, QUESTIONS, api, markers, requirePrerequisites, serveCorpus } from './lib/setup.mjs';

const attest = requirePrerequisites(['openai']);
const { default: OpenAI } = await import('openai');

// The URLs the kept claims of a /v1/answer body cite (docs/answer.md: claims[].cites[].source
// names a source id).
function citedUrls(answer) {
  const byId = new Map(answer.sources.map((s) => [s.id, s]));
  const urls = new Set();
  for (const c of answer.claims) if (c.kept) for (const cit of c.cites ?? []) urls.add(byId.get(cit.source)?.url);
  urls.delete(undefined);
  return [...urls].sort();
}

const asUrl = (c) => (typeof c === 'string' ? c : c?.url);

function checkCompletion(completion, expectedUrls) {
  assert.equal(completion.object, 'chat.completion');
  assert.equal(completion.model, 'attest-extractive');
  const choice = completion.choices[0];
  assert.equal(choice.message.role, 'assistant');
  assert.equal(choice.finish_reason, 'stop');
  const content = choice.message.content;
  const ns = markers(content);
  assert.ok(ns.length > 0, `no [n] marker in: ${content}`);
  const sourcesAt = content.search(/\n#*\s*\**Sources\**:?\s*\n/);
  assert.ok(sourcesAt > 0, `no markdown Sources list in: ${content}`);
  const list = content.slice(sourcesAt);
  for (const url of expectedUrls) assert.ok(list.includes(url), `the Sources list lacks ${url}:\n${list}`);
  for (const n of ns) assert.match(list, new RegExp(`\\[${n}\\]`), `marker [${n}] is not in the Sources list`);
  // Structured fields for clients that read them.
  assert.ok(Array.isArray(completion.citations), 'no citations field');
  assert.deepEqual([...new Set(completion.citations.map(asUrl))].sort(), expectedUrls, 'citations differ from /v1/answer\'s cited sources');
  assert.ok(Array.isArray(completion.search_results), 'no search_results field');
  for (const url of expectedUrls) assert.ok(completion.search_results.some((r) => r.url === url), `search_results lack ${url}`);
  const annotations = choice.message.annotations ?? [];
  assert.ok(annotations.length > 0, 'no annotations');
  for (const a of annotations) {
    assert.equal(a.type, 'url_citation');
    assert.ok(expectedUrls.includes(a.url_citation.url), `annotation cites ${a.url_citation.url}`);
    const { start_index: s, end_index: e } = a.url_citation;
    assert.ok(Number.isInteger(s) && Number.isInteger(e) && s >= 0 && e <= content.length && s < e, JSON.stringify(a));
  }
  assert.deepEqual([...new Set(annotations.map((a) => a.url_citation.url))].sort(), expectedUrls);
  assert.ok(completion.usage && Number.isInteger(completion.usage.total_tokens), `usage: ${JSON.stringify(completion.usage)}`);
  return content;
}

const ctx = await serveCorpus(attest);
const checks = new Checks();
let failed = true;
try {
  const key = ctx.keys.acmeReader;
  const client = new OpenAI({ apiKey: key, baseURL: `${ctx.server.url}/v1`, maxRetries: 0 });

  await checks.run('models.list() lists attest-extractive', async () => {
    const ids = [];
    for await (const m of client.models.list()) {
      assert.equal(m.object, 'model');
      ids.push(m.id);
    }
    assert.ok(ids.includes('attest-extractive'), `models: ${ids}`);
  });

  for (const question of [QUESTIONS.retries, QUESTIONS.queue]) {
    const reference = await api(ctx.server.url, key, 'POST', '/v1/answer', { question, no_cache: true });
    assert.equal(reference.status, 200, reference.text);
    assert.equal(reference.json.outcome, 'answer', reference.text);
    const expected = citedUrls(reference.json);
    assert.ok(expected.length > 0, 'the /v1/answer claims cite nothing');
    let plain;
    await checks.run(`non-streamed completion "${question}": markers, Sources, citations = /v1/answer's`, async () => {
      const completion = await client.chat.completions.create({
        model: 'attest-extractive', messages: [{ role: 'user', content: question }] });
      plain = checkCompletion(completion, expected);
    });
    await checks.run(`streamed completion "${question}": chunks end with [DONE], same text, same citations`, async () => {
      const stream = await client.chat.completions.create({
        model: 'attest-extractive', messages: [{ role: 'user', content: question }], stream: true });
      let text = '';
      let chunks = 0;
      let finish = null;
      const citations = new Set();
      for await (const chunk of stream) {
        chunks += 1;
        assert.equal(chunk.object, 'chat.completion.chunk');
        const choice = chunk.choices[0];
        if (choice?.delta?.content) text += choice.delta.content;
        if (choice?.finish_reason) finish = choice.finish_reason;
        for (const c of chunk.citations ?? []) citations.add(asUrl(c));
      }
      assert.ok(chunks >= 2, `only ${chunks} chunk(s)`);
      assert.equal(finish, 'stop');
      assert.equal(text, plain, 'the streamed text differs from the non-streamed one');
      assert.deepEqual([...citations].sort(), expected, 'the streamed citations differ from /v1/answer\'s');
    });
  }

  await checks.run('an unknown model: NotFoundError with an OpenAI error body', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'attest-no-such-model', messages: [{ role: 'user', content: QUESTIONS.retries }] }),
      (e) => {
        assert.ok(e instanceof OpenAI.NotFoundError, `${e.constructor.name}: ${e.message}`);
        assert.equal(e.status, 404);
        assert.equal(typeof e.error?.message, 'string', JSON.stringify(e.error));
        assert.equal(typeof e.error?.type, 'string', JSON.stringify(e.error));
        assert.match(e.error.message, /attest-no-such-model/);
        return true;
      });
  });

  await checks.run('a bad key: AuthenticationError (chat and models)', async () => {
    const bad = new OpenAI({ apiKey: 'att_not_a_real_key', baseURL: `${ctx.server.url}/v1`, maxRetries: 0 });
    for (const call of [() => bad.chat.completions.create({ model: 'attest-extractive', messages: [{ role: 'user', content: 'hi' }] }),
                        () => bad.models.list()]) {
      await assert.rejects(call(), (e) => {
        assert.ok(e instanceof OpenAI.AuthenticationError, `${e.constructor.name}: ${e.message}`);
        assert.equal(e.status, 401);
        assert.equal(typeof e.error?.message, 'string', JSON.stringify(e.error));
        return true;
      });
    }
  });

  await checks.run('a request without a user message: BadRequestError naming messages', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'attest-extractive', messages: [] }),
      (e) => {
        assert.ok(e instanceof OpenAI.BadRequestError, `${e.constructor.name}: ${e.message}`);
        assert.match(`${e.error?.message} ${e.error?.param ?? ''}`, /messages/);
        return true;
      });
  });

  console.log(`openai_client: ${checks.passed} checks passed against ${ctx.server.url}`);
  failed = false;
} finally {
  await ctx.server.stop();
  if (failed) console.log(`attest serve's log:\n${ctx.server.log().slice(-4000)}`);
  rmSync(ctx.tmp, { recursive: true, force: true });
}
