// A stand-in for an OpenAI-compatible chat server (loopback only) that drafts answers for the LLM
// writer (docs/llm_writer.md). It refuses `response_format` (HTTP 400), so the writer takes its prose
// path and streams. The draft is two sentences, both citing [n]: the evidence sentence that shares the
// most words with the question (verbatim, so it is supported), then a sentence no passage supports (so
// the sentence gate withdraws it). The repair round (the conversation holds the first draft) gets the
// supported sentence alone.
import { createServer } from 'node:http';

const UNSUPPORTED = 'The Falcon server was written by a team of seven penguins living in Antarctica';

function words(s) {
  return new Set((s.toLowerCase().match(/[a-z0-9_]+/g) || []).filter((w) => w.length > 2));
}

function sentences(text) {
  return text.split(/(?<=[.!?])\s+/).map((s) => s.trim()).filter((s) => /[.!?]$/.test(s) && s.length > 12);
}

// The evidence block and the question of the writer's user message.
function readPrompt(messages) {
  const user = messages.find((m) => m.role === 'user')?.content || '';
  const passages = [];
  const block = user.match(/<evidence>\n?([\s\S]*?)<\/evidence>/);
  for (const line of (block ? block[1] : '').split('\n')) {
    try { const p = JSON.parse(line); if (p && typeof p.text === 'string') passages.push(p); } catch { /* skip */ }
  }
  const q = user.match(/Question \(JSON string\): (".*")/);
  let question = '';
  try { question = q ? JSON.parse(q[1]) : ''; } catch { question = ''; }
  return { passages, question };
}

function draft(passages, question) {
  const qw = words(question);
  let best = null;
  for (const p of passages) {
    for (const s of sentences(p.text)) {
      let score = 0;
      for (const w of words(s)) if (qw.has(w)) score++;
      if (!best || score > best.score) best = { score, s, n: p.n };
    }
  }
  if (!best) return 'The passages do not answer this question.';
  return { first: `${best.s.replace(/[.!?]$/, '')} [${best.n}].`, second: `${UNSUPPORTED} [${best.n}].` };
}

function sse(res, model, text) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id: 'chatcmpl-e2e', object: 'chat.completion.chunk',
    created: 1700000000, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.write(chunk({ role: 'assistant', content: '' }));
  for (let i = 0; i < text.length; i += 12) res.write(chunk({ content: text.slice(i, i + 12) }));
  res.write(chunk({}, 'stop'));
  res.end('data: [DONE]\n\n');
}

export async function startFakeLlm() {
  const requests = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      requests.push({ method: req.method, url: req.url, remote: req.socket.remoteAddress, body });
      if (req.method === 'GET' && req.url.endsWith('/models')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'e2e-writer', object: 'model' }] }));
        return;
      }
      let j;
      try { j = JSON.parse(body); } catch { j = null; }
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions') || !j || !Array.isArray(j.messages)) {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      if (j.response_format) {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'response_format is not supported', type: 'invalid_request_error' } }));
        return;
      }
      const { passages, question } = readPrompt(j.messages);
      const repair = j.messages.some((m) => m.role === 'assistant');
      const d = draft(passages, question);
      const text = typeof d === 'string' ? d : repair ? d.first : `${d.first} ${d.second}`;
      if (j.stream) { sse(res, j.model || 'e2e-writer', text); return; }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ id: 'chatcmpl-e2e', object: 'chat.completion', created: 1700000000,
        model: j.model || 'e2e-writer', choices: [{ index: 0, message: { role: 'assistant', content: text },
          finish_reason: 'stop' }], usage: { prompt_tokens: 100, completion_tokens: 40, total_tokens: 140 } }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    unsupported: UNSUPPORTED,
    stop: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }),
  };
}
