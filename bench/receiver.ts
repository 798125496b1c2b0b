// The benchmarks' callback receiver: a bare node:http server in a worker thread, so its work is not
// counted as the measured thread's. It answers 200 "ok" and reports each arrival's webhook-id and
// time (epoch ms) in batches every 5 ms, with the CPU its thread has used (to leave it out of the
// measured process's).
import { Worker } from 'node:worker_threads';

const RECEIVER = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const { readFileSync } = require('node:fs');
const cpuMs = () => {
  try {
    const f = readFileSync('/proc/thread-self/stat', 'utf8');
    const x = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(x[11]) + Number(x[12])) * 10;
  } catch { return 0; }
};
let arrivals = [];
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    arrivals.push([req.headers['webhook-id'], performance.timeOrigin + performance.now()]);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 10000;
setInterval(() => { if (arrivals.length) { parentPort.postMessage({ arrivals, cpuMs: cpuMs() }); arrivals = []; } }, 5).unref();
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => { if (m === 'stop') server.close(() => process.exit(0)); });
`;

export interface BenchReceiver {
  url: string;
  /** First arrival time (epoch ms) by webhook-id. */
  arrived: Map<string, number>;
  /** CPU the receiver's thread had used at its last report (ms). */
  cpuMs(): number;
  stop(): Promise<number>;
}

export async function startReceiver(): Promise<BenchReceiver> {
  const worker = new Worker(RECEIVER, { eval: true });
  const arrived = new Map<string, number>();
  let cpu = 0;
  const port = await new Promise<number>((resolve) => {
    worker.on('message', (m: { port: number } | { arrivals: Array<[string, number]>; cpuMs: number }) => {
      if ('port' in m) return resolve(m.port);
      cpu = m.cpuMs;
      for (const [id, t] of m.arrivals) if (!arrived.has(id)) arrived.set(id, t);
    });
  });
  return { url: `http://127.0.0.1:${port}/hook`, arrived, cpuMs: () => cpu, stop: () => worker.terminate() };
}
