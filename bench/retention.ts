// Retention sweep benchmark (`npx tsx bench/retention.ts [--rows N]`): an embedded store
// with N finished callbacks (outbox rows with a 1.5 kB payload and one attempt each), half of them
// past DELIVERY_RETENTION_DAYS, plus N/10 pending ones; then sweeps until nothing is left to remove.
// Prints rows removed per second, the longest event-loop stall during the sweeps (what a request
// arriving meanwhile waits at most), and the main thread's heap before and after.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import type { ServiceContext } from '../src/services/context.js';
import { buildServiceContext } from '../src/plugins/service-context.js';
import { sweepExpired } from '../src/services/retention.js';
import type { DeliveryAttemptDoc, OutboxDoc } from '../src/store/documents.js';
import { newId } from '../src/store/ids.js';
import { openStore } from '../src/store/store.js';
import { numberArg } from './args.js';

const ROWS = numberArg('rows', 200_000);
const DAY = 86_400_000;
const text = 'y'.repeat(1400);

async function main() {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-retention-'));
  const store = await openStore({ kind: 'embedded', dataDir });
  const ctx: ServiceContext = buildServiceContext({ store, config: { ...loadConfig({}), dataDir, deliveryRetentionDays: 30 } }).ctx;
  try {
    const now = Date.now();
    const outbox = store.collection<OutboxDoc>('outbox');
    const attempts = store.collection<DeliveryAttemptDoc>('delivery_attempts');
    for (let k = 0; k < ROWS + ROWS / 10; k += 5000) {
      const rows: OutboxDoc[] = [];
      for (let j = k; j < Math.min(k + 5000, ROWS + ROWS / 10); j++) {
        const at = j < ROWS / 2 ? now - 40 * DAY : now - DAY;
        const id = `evt_${newId()}`;
        rows.push({
          _id: id, app_id: 'A', trigger_id: 'T', user_id: 'U', place_id: 'P', layer_id: 'L', url: 'http://127.0.0.1/cb', payload: JSON.stringify({ event_id: id, text }),
          status: j < ROWS ? 'delivered' : 'pending', attempts: 1, rounds: 1, next_attempt_at: at, lease_until: 0, created_at: at, updated_at: at,
        });
      }
      await outbox.insertMany(rows);
      await attempts.insertMany(rows.map((r) => ({ _id: newId(), event_id: r._id, app_id: 'A', attempt: 1, at: r.updated_at, duration_ms: 3, outcome: 'delivered' as const })));
    }
    global.gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const t0 = performance.now();
    let removed = 0;
    let sweeps = 0;
    for (;;) {
      const r = await sweepExpired(ctx, now);
      sweeps++;
      removed += r.callbacks;
      if (r.callbacks === 0) break;
    }
    const s = (performance.now() - t0) / 1000;
    delay.disable();
    global.gc?.();
    const heap1 = process.memoryUsage().heapUsed;
    console.log(`bench/retention: ${ROWS} finished callbacks (${ROWS / 2} past retention) + ${ROWS / 10} pending, embedded store`);
    console.log(`  removed ${removed} rows and their attempts in ${s.toFixed(2)} s over ${sweeps} sweeps: ${Math.round(removed / s)} rows/s`);
    console.log(`  longest event-loop stall during the sweeps: ${(delay.max / 1e6).toFixed(1)} ms (p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms)`);
    console.log(`  main heap: ${(heap0 / 1e6).toFixed(0)} MB before, ${(heap1 / 1e6).toFixed(0)} MB after${global.gc ? '' : ' (run with --expose-gc for exact figures)'}`);
    console.log(`  left: ${await outbox.countDocuments({})} outbox rows, ${await attempts.countDocuments({})} attempts`);
  } finally {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
