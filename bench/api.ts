// API latency benchmark (`npm run bench:api`): starts the real server (`src/server.ts`, a child
// process, so the load generator does not share its event loop) on the embedded store in a fresh
// temporary DATA_DIR, creates an application and 10,000 users through the public API
// (user/create_anon), then measures trigger/create and user/list at several offsets with
// concurrent keep-alive HTTP clients (undici) on loopback, and prints p50/p95/p99 and req/s.
//
// Options (environment): BENCH_USERS (10000), BENCH_CONCURRENCY (16), BENCH_REQUESTS (2000
// trigger/create requests), BENCH_LIST_REQUESTS (500 per user/list scenario), BENCH_KEEP=1 keeps
// the data directory, BENCH_NODE_ARGS (flags for the server's node, e.g. --cpu-prof).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { freePort } from '../load-tests/processes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USERS = Number(process.env.BENCH_USERS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2_000);
const LIST_REQUESTS = Number(process.env.BENCH_LIST_REQUESTS ?? 500);
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
let stopping = false;

interface Req {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Result {
  name: string;
  requests: number;
  seconds: number;
  latencies: number[];
  statuses: Map<number | string, number>;
}


async function startService(dataDir: string, port: number): Promise<ChildProcess> {
  // BENCH_NODE_ARGS passes flags to the server's node, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN, LOG_LEVEL: 'warn', MONGODB_URL: '' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.once('exit', (code, signal) => {
    if (!stopping) console.error(`bench:api: the server exited during the run (code ${code}, signal ${signal})`);
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.ok) return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGTERM');
  throw new Error('server did not become healthy within 60 s');
}

/** Runs `total` requests from `next()` over `concurrency` keep-alive connections. */
async function load(pool: Pool, name: string, total: number, concurrency: number, next: (i: number) => Req): Promise<Result> {
  const latencies: number[] = [];
  const statuses = new Map<number | string, number>();
  let issued = 0;
  const started = performance.now();
  const worker = async () => {
    while (issued < total) {
      const req = next(issued++);
      const t0 = performance.now();
      let status: number | string;
      try {
        const res = await pool.request({ method: req.method, path: req.path, headers: req.headers, body: req.body });
        await res.body.text();
        status = res.statusCode;
      } catch (err) {
        // A transport error is a result too (counted, not fatal): name it by its code.
        status = (err as { code?: string }).code ?? 'error';
      }
      latencies.push(performance.now() - t0);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const result = { name, requests: total, seconds: (performance.now() - started) / 1000, latencies, statuses };
  console.log(`  done: ${name} in ${result.seconds.toFixed(1)} s`);
  return result;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function report(results: Result[]) {
  const rows = results.map((r) => {
    const s = [...r.latencies].sort((a, b) => a - b);
    const codes = [...r.statuses.entries()].map(([c, n]) => `${c}×${n}`).join(' ');
    return [r.name, String(r.requests), percentile(s, 50).toFixed(1), percentile(s, 95).toFixed(1), percentile(s, 99).toFixed(1), (r.requests / r.seconds).toFixed(0), codes];
  });
  const head = ['scenario', 'requests', 'p50 ms', 'p95 ms', 'p99 ms', 'req/s', 'statuses'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 6 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}

const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function main() {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'geotrigger-bench-'));
  const port = await freePort();
  console.log(`bench:api: ${cpus().length} CPUs, node ${process.version}, embedded store in ${dataDir}`);
  const server = await startService(dataDir, port);
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY, pipelining: 1 });
  try {
    const created = await fetch(`http://127.0.0.1:${port}/admin/app/create`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }),
    });
    const app = (await created.json()) as { client_id: string; client_secret: string; access_token: string };
    const basic = `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`;
    const results: Result[] = [];

    // Setup, through the API: 10,000 anonymous users (also measured: it is the create_anon path).
    results.push(await load(pool, `user/create_anon (setup, ${USERS} users)`, USERS, CONCURRENCY, (i) => ({
      method: 'POST', path: '/1/user/create_anon', ...json({ client_id: app.client_id, extra: { n: i } }),
    })));
    const total = (await (await fetch(`http://127.0.0.1:${port}/1/user/list?limit=1`, { headers: { authorization: basic } })).json()) as { paging: { total: number } };
    if (total.paging.total !== USERS) throw new Error(`expected ${USERS} users, the service lists ${total.paging.total}`);

    const auth = { authorization: `OAuth ${app.access_token}` };
    // trigger/create with an inline place, as the seed's example: a fresh place each time.
    results.push(await load(pool, 'trigger/create (inline place)', REQUESTS, CONCURRENCY, (i) => {
      const r = json({
        key: `bench-${i}`, type: 'message', text: `Welcome ${i}`, place_name: `Place ${i}`,
        latitude: 45.5 + (i % 100) * 0.001, longitude: -122.7 + Math.floor(i / 100) * 0.001, radius: 100,
      });
      return { method: 'POST', path: '/1/trigger/create', headers: { ...auth, ...r.headers }, body: r.body };
    }));

    for (const offset of [0, Math.floor(USERS / 2), USERS - 25]) {
      results.push(await load(pool, `user/list offset=${offset} limit=25`, LIST_REQUESTS, CONCURRENCY, () => ({
        method: 'GET', path: `/1/user/list?offset=${offset}&limit=25`, headers: { authorization: basic },
      })));
    }
    results.push(await load(pool, 'user/list random offsets limit=100', LIST_REQUESTS, CONCURRENCY, () => ({
      method: 'GET', path: `/1/user/list?offset=${Math.floor(Math.random() * (USERS - 100))}&limit=100`, headers: { authorization: basic },
    })));

    console.log(`\n${USERS} users, ${CONCURRENCY} concurrent keep-alive connections on loopback, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
    report(results);
  } finally {
    await pool.close();
    stopping = true;
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    if (!process.env.BENCH_KEEP) await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
