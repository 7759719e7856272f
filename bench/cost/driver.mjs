// The driver of bench/cost/run.sh: the SERVER's CPU time per request of one running `attest serve`
// (started with --no-cache, so every request does its whole work), for three kinds of request:
//
//   transport  GET /healthz with the key: the HTTP stack, routing and authentication alone
//   search     POST /v1/search {"query", "top_k": 10}: the default mode (hybrid when the store has
//              vectors), with snippets
//   answer     POST /v1/answer {"question"}: the extractive answer (plan, retrieve, evidence, verify)
//
// CPU is read from /proc/<pid>/stat (utime + stime of every thread, in USER_HZ ticks: the kernel's
// own accounting of the process, precise but truncated to a tick). A batch therefore runs requests
// one at a time until the server has spent at least --min-cpu-ms of CPU (so the truncation costs at
// most a few percent), and its figure is CPU / requests. Round r runs the kinds in the order rotated
// by r, so drift and load on a shared machine fall on every kind alike.
//
// Several servers (--url/--pid/--name repeated, e.g. the binary before and after a change, over copies
// of one store) are measured side by side in one run: every round measures every (server, kind) pair,
// in an order rotated by the round, and the figures of a server other than the first also give, per
// round, the ratio to the first server's figure for the same kind.
//
//   node driver.mjs --url URL --pid PID --key KEY [--name NAME] [--url URL2 --pid PID2 --key KEY2 --name NAME2 ...]
//                   --questions FILE.txt [--rounds 5] [--min-cpu-ms 500] [--hz 100]
//                   [--kinds transport,search,answer] [--json OUT] [--label TEXT]
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: o } = parseArgs({ options: {
  url: { type: 'string', multiple: true }, pid: { type: 'string', multiple: true },
  name: { type: 'string', multiple: true }, key: { type: 'string', multiple: true }, questions: { type: 'string' },
  rounds: { type: 'string', default: '5' }, 'min-cpu-ms': { type: 'string', default: '500' },
  hz: { type: 'string', default: '100' }, json: { type: 'string' }, label: { type: 'string', default: '' },
  kinds: { type: 'string', default: 'transport,search,answer' },
} });
for (const k of ['url', 'pid', 'key', 'questions']) if (!o[k]) { console.error(`driver: --${k} is required`); process.exit(2); }
if (o.url.length !== o.pid.length) { console.error('driver: give one --pid per --url'); process.exit(2); }
if (o.key.length !== 1 && o.key.length !== o.url.length) { console.error('driver: give one --key, or one per --url'); process.exit(2); }
const servers = o.url.map((url, i) => ({ url, pid: o.pid[i], key: o.key[Math.min(i, o.key.length - 1)],
                                         name: o.name?.[i] ?? (o.url.length > 1 ? `s${i + 1}` : '') }));
const rounds = Number(o.rounds);
const minTicks = Math.ceil((Number(o['min-cpu-ms']) * Number(o.hz)) / 1000);
const questions = readFileSync(o.questions, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
if (questions.length === 0) { console.error('driver: no questions'); process.exit(2); }

function cpuTicks(server) {
  const stat = readFileSync(`/proc/${server.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');  // fields from 3 (state) on
  return Number(f[11]) + Number(f[12]);  // utime (14) + stime (15)
}

async function call(server, method, path, body) {
  const auth = { Authorization: `Bearer ${server.key}` };
  const res = await fetch(server.url + path, {
    method, headers: body ? { ...auth, 'Content-Type': 'application/json' } : auth,
    body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return text;
}
const KINDS = {
  transport: async (s) => call(s, 'GET', '/healthz'),
  search: async (s, q) => {
    const r = JSON.parse(await call(s, 'POST', '/v1/search', { query: q, top_k: 10 }));
    return r.hits.length;
  },
  answer: async (s, q) => JSON.parse(await call(s, 'POST', '/v1/answer', { question: q })).answer ?? '',
};
const names = o.kinds.split(',').filter(Boolean);
for (const n of names) if (!KINDS[n]) { console.error(`driver: unknown kind ${n}`); process.exit(2); }

// Warm-up: every question once through every kind on every server (first-touch page faults, lazy
// initialisation).
for (const srv of servers) {
  let hits = 0;
  let answered = 0;
  for (const q of questions) {
    if (names.includes('search')) hits += await KINDS.search(srv, q);
    if (names.includes('answer') && (await KINDS.answer(srv, q))) answered += 1;
  }
  await KINDS.transport(srv);
  console.log(`${o.label}${srv.name} warm-up: ${questions.length} questions; ${hits} search hits; ${answered} answered (the others fall back)`);
}

const cells = servers.flatMap((srv) => names.map((kind) => ({ srv, kind, key: `${srv.name ? `${srv.name}:` : ''}${kind}` })));
const next = Object.fromEntries(cells.map((c) => [c.key, 0]));
const cpuMs = Object.fromEntries(cells.map((c) => [c.key, []]));
const counts = Object.fromEntries(cells.map((c) => [c.key, []]));
for (let r = 0; r < rounds; r++) {
  const order = cells.map((_, i) => cells[(i + r) % cells.length]);
  for (const { srv, kind, key } of order) {
    const t0 = cpuTicks(srv);
    let n = 0;
    let t1 = t0;
    while (t1 - t0 < minTicks) {
      await KINDS[kind](srv, questions[next[key]]);
      next[key] = (next[key] + 1) % questions.length;
      n += 1;
      if (n % 8 === 0 || kind !== 'transport') t1 = cpuTicks(srv);
    }
    t1 = cpuTicks(srv);
    cpuMs[key].push(((t1 - t0) * 1000) / Number(o.hz) / n);
    counts[key].push(n);
  }
  console.log(`${o.label}round ${r + 1}/${rounds}: ${order.map((c) => `${c.key} ${cpuMs[c.key].at(-1).toFixed(3)}`).join(', ')} ms/req`);
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const summary = {};
for (const { srv, kind, key } of cells) {
  const xs = cpuMs[key];
  const base = cpuMs[`${servers[0].name ? `${servers[0].name}:` : ''}${kind}`];
  const ratios = xs.map((x, i) => x / base[i]);
  summary[key] = { server: srv.name, kind, median_ms: median(xs), min_ms: Math.min(...xs), max_ms: Math.max(...xs),
                   requests: counts[key], rounds: xs };
  let line = `${o.label}${key.padEnd(20)} ${summary[key].median_ms.toFixed(3).padStart(8)} ms CPU/request  `
             + `[${summary[key].min_ms.toFixed(3)}-${summary[key].max_ms.toFixed(3)}] over ${rounds} rounds`;
  if (srv !== servers[0]) {
    summary[key].ratio_median = median(ratios);
    summary[key].ratio_min = Math.min(...ratios);
    summary[key].ratio_max = Math.max(...ratios);
    line += `; ratio to ${servers[0].name} ${median(ratios).toFixed(3)} [${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}]`;
  }
  console.log(line);
}
if (o.json) writeFileSync(o.json, JSON.stringify({ label: o.label, rounds, questions: questions.length, servers: servers.map((x) => x.name), summary }, null, 2));
