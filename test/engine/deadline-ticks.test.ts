// A dwell fired by the clock fires at its deadline, not at the next poll of the host: each shard
// answer carries the shard's earliest deadline and the host sets a timer for it. Here the poll is
// a minute away, so only that timer can fire the dwell within the test's wait.
import { afterEach, describe, expect, it } from 'vitest';
import { enginePorts } from '../../src/plugins/engine.js';
import { EngineHost } from '../../src/engine/host.js';
import { destinationPoint } from '../../src/geo/distance.js';
import type { LocationPoint } from '../../src/schemas/location-points.js';
import type { TriggerHistoryDoc } from '../../src/store/documents.js';
import { openCtx, removeDir, seed, tempDataDir } from '../delivery/helpers.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe('dwell deadlines', () => {
  it.each([1, 2])('fire at their deadline with %i shard(s), a minute before the next poll', async (shards) => {
    const dir = await tempDataDir();
    cleanup.push(() => removeDir(dir));
    const ctx = await openCtx(dir);
    cleanup.push(() => ctx.store.close());
    const f = await seed(ctx, { type: 'message', text: 'stayed', trigger_after: 1 });
    const host = new EngineHost(ctx, enginePorts(ctx.store, ctx.delivery), { shards, tickIntervalMs: 60_000 });
    cleanup.push(() => host.close());
    await host.start();

    const inside = destinationPoint(f.place.latitude, f.place.longitude, 0, 10);
    const entered = Date.now();
    const point: LocationPoint = { at: entered, latitude: inside.lat, longitude: inside.lon, accuracy: 10, raw: null };
    await host.ingest(f.app, f.user, { points: [point] }, ctx.now());

    const history = ctx.store.collection<TriggerHistoryDoc>('trigger_history');
    let fired: TriggerHistoryDoc | undefined;
    const giveUp = Date.now() + 10_000;
    while (!fired && Date.now() < giveUp) {
      [fired] = await history.find({ user_id: f.user._id }).toArray();
      if (!fired) await new Promise((r) => setTimeout(r, 20));
    }
    expect(fired, 'the dwell fired before the next poll').toBeDefined();
    expect(fired!.date).toBe(entered + 1000);
    expect(fired!.delay_s).toBe(1);
  });
});
