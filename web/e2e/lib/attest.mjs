// A real `attest serve --port 0` over a data directory, and the CLI calls the tests make around it
// (keys, ingestion). Everything binds to 127.0.0.1.
import { execFileSync, spawn } from 'node:child_process';

export function createKey(attest, data, { user, tenant = 'default', admin = false }) {
  const args = ['--data', data, 'keys', 'create', '--tenant', tenant, '--user', user, '--label', 'web e2e'];
  if (admin) args.push('--admin');
  const out = execFileSync(attest, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const key = out.trim().split('\n').pop().trim();
  if (!/^att_\S+$/.test(key)) throw new Error(`attest keys create printed no key: ${out}`);
  return key;
}

export function ingestFolder(attest, data, folder, { sourceType, version, site }) {
  const started = performance.now();
  execFileSync(attest, ['--data', data, 'ingest', '--source-type', sourceType, '--version', version,
    '--site', site, folder], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OMP_NUM_THREADS: '1' } });
  return performance.now() - started;
}

// Starts `attest [globalArgs] --data D serve --port 0 [serveArgs]` and waits for its "listening on" line.
export async function startServe(attest, data, { globalArgs = [], serveArgs = [] } = {}) {
  const args = ['--data', data, ...globalArgs, 'serve', '--host', '127.0.0.1', '--port', '0', ...serveArgs];
  if (process.env.ATTEST_E2E_WEB_DIR) args.push('--web-dir', process.env.ATTEST_E2E_WEB_DIR);
  const proc = spawn(attest, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OMP_NUM_THREADS: '1' } });
  let log = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`attest serve did not start in 30 s:\n${log}`)), 30000);
    const onData = (chunk) => {
      log += chunk.toString();
      const m = log.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`attest serve exited (${code}):\n${log}`)); });
  });
  proc.removeAllListeners('exit');
  return {
    url,
    log: () => log,
    async stop() {
      if (proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.on('exit', r));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 10000);
      await exited;
      clearTimeout(t);
    },
  };
}

// A JSON call to the API from Node (not from the page): setting up the corpus and checking, server
// side, what the page did.
export async function api(url, key, method, path, body) {
  const res = await fetch(url + path, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, json, text, headers: res.headers };
}
