// Benchmark of a compaction of the embedded store under writes: a collection of N callback-sized
// rows (~2.8 kB, like an outbox row with its signed payload) is compacted while one writer after
// another inserts, updates and deletes, each waiting for its write to be acknowledged. Prints how
// long the compaction took, how many writes were acknowledged meanwhile and how long they waited.
// Run: npx tsx load-tests/bench-compaction.ts [--rows N] [--writers N]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openEmbeddedEngine } from '../src/store/embedded-engine.js';
import { numberArg } from './bench-args.js';

const ROWS = numberArg('rows', 50_000);
const WRITERS = numberArg('writers', 8);

type Row = { _id: string; app_id: string; status: string; attempts: number; updated_at: number; payload: string };
const payload = JSON.stringify({ event_id: 'x', place: { name: 'p'.repeat(600) }, user: { name: 'u'.repeat(600) }, location: { raw: 'r'.repeat(600) } });
const row = (id: string, n: number): Row => ({ _id: id, app_id: 'app', status: 'delivering', attempts: 0, updated_at: n, payload });

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-compaction-'));
  try {
    const engine = await openEmbeddedEngine(dir, ['outbox']);
    const col = engine.collection<Row>('outbox');
    for (let i = 0; i < ROWS; i += 1000) {
      await col.insertMany(Array.from({ length: Math.min(1000, ROWS - i) }, (_, j) => row(`r${i + j}`, i + j)));
    }
    // The event loop's longest stall while the compaction runs.
    let maxStall = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      maxStall = Math.max(maxStall, now - last - 5);
      last = now;
    }, 5);

    const waits: number[] = [];
    let done = false;
    let seq = 0;
    const writer = async () => {
      while (!done) {
        const k = seq++;
        const t0 = performance.now();
        await col.insertOne(row(`new${k}`, k));
        await col.updateOne({ _id: `r${k}` }, { $set: { status: 'delivered', attempts: 1, updated_at: k } });
        await col.deleteOne({ _id: `r${ROWS - 1 - k}` });
        waits.push(performance.now() - t0);
      }
    };
    const t0 = performance.now();
    last = t0;
    const writers = Array.from({ length: WRITERS }, writer);
    await engine.compact();
    const took = performance.now() - t0;
    done = true;
    await Promise.all(writers);
    clearInterval(ticker);
    const during = waits.length;
    waits.sort((a, b) => a - b);
    console.log(`${ROWS} rows of ~${(JSON.stringify(row('r0', 0)).length / 1000).toFixed(1)} kB, ${WRITERS} writers (insert + update + delete, each awaited)`);
    console.log(`  compaction: ${took.toFixed(0)} ms; ${during} write rounds acknowledged meanwhile`);
    console.log(`  write round ms: p50 ${pct(waits, 50).toFixed(1)}  p99 ${pct(waits, 99).toFixed(1)}  max ${(waits.at(-1) ?? NaN).toFixed(1)}`);
    console.log(`  longest event-loop stall: ${maxStall.toFixed(1)} ms`);
    await engine.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
