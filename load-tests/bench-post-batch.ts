// Micro-benchmark of handing a point batch to a thread: the sender's CPU per postMessage of a
// batch whose five columns are separate typed arrays (as before) against views of one buffer
// (workers/protocol.ts emptyBatch), for single-point-sized and larger batches. Prints µs per
// message (building the batch and posting it; the receiving thread only drops it).
// Run: npx tsx load-tests/bench-post-batch.ts [--rounds N]
import { Worker } from 'node:worker_threads';
import { emptyBatch, putPoint, type PointBatch } from '../workers/protocol.js';
import { numberArg } from '../bench/args.js';

const ROUNDS = numberArg('rounds', 3);
const MESSAGES = 50_000;

const fiveBuffers = (n: number): PointBatch => ({
  users: [], user: new Int32Array(n), at: new Float64Array(n), lat: new Float64Array(n), lon: new Float64Array(n), acc: new Float64Array(n),
});

function fill(b: PointBatch, n: number): PointBatch {
  const ids = new Map<string, number>();
  for (let k = 0; k < n; k++) putPoint(b, k, { userId: `user-${k}`, at: 1.7e12 + k, lat: 45 + k / 1e4, lon: -122 - k / 1e4, acc: 10 }, ids);
  return b;
}

const sink = new Worker("require('node:worker_threads').parentPort.on('message', () => {});", { eval: true });
const turn = () => new Promise((resolve) => setImmediate(resolve));

async function perMessage(make: (n: number) => PointBatch, n: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < MESSAGES; i++) {
    sink.postMessage({ type: 'points', v: 1, generation: 0, points: fill(make(n), n) });
    if (i % 500 === 499) await turn(); // let the receiver keep up, as the engine's queue does
  }
  // Wall time of a thread that is busy throughout: its CPU per message.
  return Number(process.hrtime.bigint() - start) / 1e3 / MESSAGES;
}

for (let round = 1; round <= ROUNDS; round++) {
  for (const n of [1, 2, 50, 1000]) {
    const five = await perMessage(fiveBuffers, n);
    const one = await perMessage(emptyBatch, n);
    console.log(`round ${round}, ${n} point(s): five buffers ${five.toFixed(2)} µs, one buffer ${one.toFixed(2)} µs per message`);
  }
}
await sink.terminate();
