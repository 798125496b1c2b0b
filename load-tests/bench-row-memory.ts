// Heap kept per callback row by the embedded store, which holds every document in memory until
// retention removes it: an outbox row while leased (with its signed payload), then delivered with
// its payload kept (the update before payloads were dropped) and delivered as the dispatcher now
// leaves it (payload removed), a trigger_history row, and a delivery_attempts entry (which a
// delivered callback no longer stores for its delivering attempt). Figures are heap after a full
// collection.
// Run: node --expose-gc --import tsx load-tests/bench-row-memory.ts [--rows N]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from '../src/store/store.js';
import { attemptRow, historyRow, outboxRow, payloadOf } from './store-rows.js';
import { numberArg } from './bench-args.js';

const ROWS = numberArg('rows', 50_000);
const PER_TURN = 50;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function heapNow(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

/** Runs f for every row, 50 per event-loop turn; returns the heap it left behind, per row. */
async function perRow(f: (n: number) => Promise<unknown>): Promise<number> {
  const before = heapNow();
  for (let n = 0; n < ROWS; n += PER_TURN) {
    const turn: Array<Promise<unknown>> = [];
    for (let j = n; j < Math.min(n + PER_TURN, ROWS); j++) turn.push(f(j));
    await Promise.all(turn);
  }
  return (heapNow() - before) / ROWS;
}

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-row-memory-'));
  try {
    const store = await openStore({ kind: 'embedded', dataDir: dir });
    type Row = ReturnType<typeof outboxRow>;
    const kept = store.collection<Row>('outbox');
    const history = store.collection<ReturnType<typeof historyRow>>('trigger_history');
    const attempts = store.collection<ReturnType<typeof attemptRow>>('delivery_attempts');
    const delivered = (n: number) => ({ status: 'delivered', delivered_at: n, lease_until: 0, last_duration_ms: 3, attempts: 1, last_status: 200, updated_at: n });
    console.log(`bench-row-memory: ${ROWS} rows; heap per row after a full collection`);

    const leased = await perRow((n) => kept.insertOne({ ...outboxRow(`a${n}`, n), payload: payloadOf(`a${n}`) }));
    const keptDelta = await perRow((n) => kept.updateOne({ _id: `a${n}`, lease_owner: 'owner:1' }, { $set: delivered(n), $unset: { last_error: '' } }));
    await perRow((n) => kept.insertOne({ ...outboxRow(`b${n}`, n), payload: payloadOf(`b${n}`) }));
    const droppedDelta = await perRow((n) => kept.updateOne({ _id: `b${n}`, lease_owner: 'owner:1' }, { $set: delivered(n), $unset: { last_error: '', payload: '' } }));
    const hist = await perRow((n) => history.insertOne(historyRow(`a${n}`, n)));
    const attempt = await perRow((n) => attempts.insertOne(attemptRow(`a${n}`, n)));

    const fmt = (b: number) => `${Math.round(b).toLocaleString('en-US').padStart(6)} B`;
    console.log(`  outbox row, leased with its payload   ${fmt(leased)}`);
    console.log(`  delivered, payload kept               ${fmt(leased + keptDelta)}`);
    console.log(`  delivered, payload removed (now)      ${fmt(leased + droppedDelta)}  (${((leased + droppedDelta) / (leased + keptDelta)).toFixed(2)} of kept)`);
    console.log(`  trigger_history row                   ${fmt(hist)}`);
    console.log(`  delivery_attempts entry               ${fmt(attempt)}`);
    const before = leased + droppedDelta + hist + attempt;
    const now = leased + droppedDelta + hist;
    console.log(`  kept per callback delivered at once: ${fmt(now)} now (outbox + history), ${fmt(before)} with its attempt stored (${(now / before).toFixed(2)})`);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
