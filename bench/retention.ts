// Retention sweep benchmark (`npx tsx bench/retention.ts [--rows N]`): an embedded store
// with N finished callbacks (dead ones, keeping their 1.5 kB payload, one attempt each), half of
// them past DELIVERY_RETENTION_DAYS, plus N/10 pending ones; then sweeps until nothing is left to
// remove. Prints callbacks swept per second, the longest event-loop stall during the sweeps (what a
// request arriving meanwhile waits at most), and the main thread's heap before and after.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import type { ServiceContext } from '../src/services/context.js';
import { buildServiceContext } from '../src/plugins/service-context.js';
import { sweepExpired } from '../src/services/retention.js';
import type { NewFiring } from '../src/store/firings.js';
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
    const all: string[] = [];
    for (let k = 0; k < ROWS + ROWS / 10; k += 5000) {
      const rows: NewFiring[] = [];
      for (let j = k; j < Math.min(k + 5000, ROWS + ROWS / 10); j++) {
        const at = j < ROWS / 2 ? now - 40 * DAY : now - DAY;
        const id = `evt_${newId()}`;
        rows.push({
          event_id: id, app_id: 'A', trigger_id: 'T', user_id: 'U', place_id: 'P', layer_id: 'L', type: 'callback', triggered_on: 'enter', delay_s: 0,
          date: at, url: 'http://127.0.0.1/cb', payload: JSON.stringify({ event_id: id, text }), status: 'pending', next_attempt_at: at, created_at: at,
        });
      }
      await store.firings.insert(rows);
      // Every one leased and given one failed attempt; all but the last tenth end dead.
      const leased = await store.firings.leaseDue(rows.map((r) => r.event_id), 'bench', now + DAY, now);
      const created = new Map(rows.map((r, i) => [r.event_id, { at: r.created_at, j: k + i }]));
      await Promise.all(leased.map((c) => {
        const { at, j } = created.get(c.event_id)!;
        c.attempts = 1;
        const attempt = { event_id: c.event_id, attempt: 1, app_id: 'A', at, duration_ms: 3, status_code: 500, outcome: 'dead' as const };
        const end = j < ROWS ? { status: 'dead' as const, lastError: 'HTTP 500' } : { status: 'pending' as const, nextAttemptAt: now + DAY, lastError: 'HTTP 500' };
        return store.firings.finish(c, end, at, attempt);
      }));
      all.push(...rows.map((r) => r.event_id));
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
    console.log(`  swept ${removed} callbacks (attempts and kept payloads) in ${s.toFixed(2)} s over ${sweeps} sweeps: ${Math.round(removed / s)} callbacks/s`);
    console.log(`  longest event-loop stall during the sweeps: ${(delay.max / 1e6).toFixed(1)} ms (p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms)`);
    console.log(`  main heap: ${(heap0 / 1e6).toFixed(0)} MB before, ${(heap1 / 1e6).toFixed(0)} MB after${global.gc ? '' : ' (run with --expose-gc for exact figures)'}`);
    let left = 0;
    for (let i = 0; i < all.length; i += 997) left += (await store.firings.get(all[i]!))?.payload !== undefined ? 1 : 0;
    console.log(`  of every 997th callback, ${left} still keep their payload`);
  } finally {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
