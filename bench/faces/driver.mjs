// The driver of bench/faces/run.sh: asks the same questions through four faces (three routes, chat both ways) of one running
// `attest serve` and reads the server's CPU time (utime + stime of /proc/<pid>/stat, every thread)
// before and after each batch. One request at a time, so a batch's CPU is its requests' CPU.
//
//   node driver.mjs --url URL --pid PID --key KEY --questions FILE.jsonl [--rounds 12] [--batch 25] [--hz 100] [--json OUT]
//
// Faces:
//   answer  POST /v1/answer {"question"}
//   mcp     POST /mcp, tools/call ask {"question"}: one stateless 2026-07-28 request per call, with the
//           MCP-Protocol-Version / Mcp-Method / Mcp-Name headers and the _meta the revision requires
//           (what the official client sends per call once connected)
//   chat    POST /v1/chat/completions {"model": "attest-extractive", "messages": [user question]}
//   chat_stream  the same with "stream": true: the SSE chunks read to `data: [DONE]` and their
//           content deltas joined
// Round r runs the faces in the order rotated by r (A B C, B C A, C A B, ...). A batch takes the next
// BATCH questions of the file, cycling; every face gets the same questions in the same round.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: o } = parseArgs({ options: {
  url: { type: 'string' }, pid: { type: 'string' }, key: { type: 'string' }, questions: { type: 'string' },
  rounds: { type: 'string', default: '12' }, hz: { type: 'string', default: '100' }, batch: { type: 'string', default: '25' }, json: { type: 'string' },
} });
for (const k of ['url', 'pid', 'key', 'questions']) if (!o[k]) { console.error(`driver: --${k} is required`); process.exit(2); }
const rounds = Number(o.rounds);
const batch = Number(o.batch);
const questions = readFileSync(o.questions, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
if (questions.length === 0) { console.error('driver: no questions'); process.exit(2); }

const TICKS_PER_S = Number(o.hz);  // USER_HZ (getconf CLK_TCK): the unit of utime/stime in /proc/<pid>/stat
function cpuTicks() {
  const stat = readFileSync(`/proc/${o.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');  // fields from 3 (state) on
  return Number(f[11]) + Number(f[12]);  // utime (14) + stime (15)
}

const auth = { Authorization: `Bearer ${o.key}`, 'Content-Type': 'application/json' };
async function post(path, body, headers = {}) {
  const res = await fetch(o.url + path, { method: 'POST', headers: { ...auth, ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

let rpcId = 0;
// Each returns the answer text, so the faces can be checked to have done the same work.
const FACES = {
  answer: async (q) => (await post('/v1/answer', { question: q })).answer ?? '',
  mcp: async (q) => {
    const r = await post('/mcp', {
      jsonrpc: '2.0', id: ++rpcId, method: 'tools/call',
      params: { name: 'ask', arguments: { question: q }, _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {} } },
    }, { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28',
         'Mcp-Method': 'tools/call', 'Mcp-Name': 'ask' });
    if (r.error) throw new Error(`MCP error: ${JSON.stringify(r.error)}`);
    if (r.result.isError) throw new Error(`MCP ask failed: ${JSON.stringify(r.result.content)}`);
    return r.result.structuredContent.answer ?? '';
  },
  chat: async (q) => {
    const r = await post('/v1/chat/completions', { model: 'attest-extractive', messages: [{ role: 'user', content: q }] });
    return r.choices[0].message.content ?? '';
  },
  chat_stream: async (q) => {
    const res = await fetch(o.url + '/v1/chat/completions', { method: 'POST', headers: auth, body: JSON.stringify(
      { model: 'attest-extractive', stream: true, messages: [{ role: 'user', content: q }] }) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`streamed chat answered ${res.status}: ${text.slice(0, 500)}`);
    const lines = text.split('\n').filter((l) => l.startsWith('data: '));
    if (lines.at(-1) !== 'data: [DONE]') throw new Error(`streamed chat did not end with [DONE]: ${text.slice(-300)}`);
    return lines.slice(0, -1).map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '').join('');
  },
};
const names = Object.keys(FACES);

// Warm-up: every face once on every question (first-touch page faults, lazy initialisation), and
// the check that they give the same answers: the MCP answer equals /v1/answer's, the chat content
// starts with it (then its Sources list).
let same = 0;
let answered = 0;
for (const q of questions) {
  const [a, m, c, cs] = [await FACES.answer(q), await FACES.mcp(q), await FACES.chat(q), await FACES.chat_stream(q)];
  if (a) answered += 1;
  if (a === m && c.startsWith(a.split('\n')[0].slice(0, 40)) && cs === c) same += 1;
}
console.log(`warm-up: ${questions.length} questions, ${answered} answered (the others fall back); `
            + `the four faces agree on ${same}/${questions.length} (the streamed chat content equals the non-streamed one)`);

const cpuMs = Object.fromEntries(names.map((n) => [n, []]));
let next = 0;
for (let r = 0; r < rounds; r++) {
  const qs = Array.from({ length: batch }, (_, i) => questions[(next + i) % questions.length]);
  next = (next + batch) % questions.length;
  const order = names.map((_, i) => names[(i + r) % names.length]);
  for (const face of order) {
    const t0 = cpuTicks();
    for (const q of qs) await FACES[face](q);
    const t1 = cpuTicks();
    cpuMs[face].push(((t1 - t0) * 1000) / TICKS_PER_S / batch);
  }
  process.stdout.write(`round ${r + 1}/${rounds}: ${order.map((f) => `${f} ${cpuMs[f].at(-1).toFixed(2)}`).join(', ')} ms/req\n`);
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const summary = {};
console.log(`\nserver CPU per request (ms), ${rounds} rounds of ${batch} requests per face, one at a time:`);
console.log('face     median   spread (min-max)   ratio to answer (median of per-round ratios; ratio of medians)');
for (const f of names) {
  const xs = cpuMs[f];
  const ratios = xs.map((x, i) => x / cpuMs.answer[i]);
  summary[f] = { median_ms: median(xs), min_ms: Math.min(...xs), max_ms: Math.max(...xs),
                 ratio_median: median(ratios), ratio_of_medians: median(xs) / median(cpuMs.answer),
                 ratio_min: Math.min(...ratios), ratio_max: Math.max(...ratios), rounds: xs };
  const s = summary[f];
  console.log(`${f.padEnd(8)} ${s.median_ms.toFixed(2).padStart(6)}   ${s.min_ms.toFixed(2)}-${s.max_ms.toFixed(2)}`.padEnd(38)
              + (f === 'answer' ? '1' : `${s.ratio_median.toFixed(3)} (per-round ${s.ratio_min.toFixed(2)}-${s.ratio_max.toFixed(2)}); ${s.ratio_of_medians.toFixed(3)}`));
}
const BAR = 1.2;
const over = names.filter((f) => f !== 'answer' && summary[f].ratio_median > BAR);
console.log(`bar ≤ ${BAR}× /v1/answer: ${over.length === 0 ? 'met' : `NOT met by ${over.join(', ')}`}`);
if (o.json) writeFileSync(o.json, JSON.stringify({ rounds, batch, questions: questions.length, agree: same, summary }, null, 2));
process.exit(over.length === 0 ? 0 : 1);
