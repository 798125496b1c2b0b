// A dwell fired by the clock fires at its deadline, not at the next poll of the host: each shard
// answer carries the shard's earliest deadline and the host sets a timer for it. Here the poll is
// a minute away, so only that timer can fire the dwell within the test's wait.
// Each firing also keeps when the service received its point (for a dwell, when the tick ran).
import { afterEach, describe, expect, it } from 'vitest';
import { enginePorts } from '../../src/plugins/engine.js';
import { EngineHost } from '../../src/engine/host.js';
import { destinationPoint } from '../../src/geo/distance.js';
import type { LocationPoint } from '../../src/schemas/location-points.js';
import type { FiringRecord } from '../../src/store/firings.js';
import { openCtx, removeDir, seed, tempDataDir } from '../delivery/helpers.js';
import { bodyOf } from './helpers/track.js';

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
    await host.ingest(f.app, f.user, bodyOf([point]), ctx.now());

    let fired: FiringRecord | undefined;
    const giveUp = Date.now() + 10_000;
    while (!fired && Date.now() < giveUp) {
      [fired] = await ctx.store.firings.history({ app_id: f.app._id, user_id: f.user._id }, 0, 10);
      if (!fired) await new Promise((r) => setTimeout(r, 20));
    }
    expect(fired, 'the dwell fired before the next poll').toBeDefined();
    expect(fired!.date).toBe(entered + 1000);
    expect(fired!.delay_s).toBe(1);
    // Received when the tick was applied: at the deadline or after, never before.
    expect(fired!.received_at).toBeGreaterThanOrEqual(fired!.date);
    expect(fired!.received_at).toBeLessThanOrEqual(Date.now());
  });
});

describe('the time a firing was received', () => {
  it('is kept on the firing: when the service got the point, not the point\'s own time', async () => {
    const dir = await tempDataDir();
    cleanup.push(() => removeDir(dir));
    const ctx = await openCtx(dir);
    cleanup.push(() => ctx.store.close());
    const f = await seed(ctx, { type: 'message', text: 'in' });
    const host = new EngineHost(ctx, enginePorts(ctx.store, ctx.delivery), { shards: 1, tickIntervalMs: 60_000 });
    cleanup.push(() => host.close());
    await host.start();

    const inside = destinationPoint(f.place.latitude, f.place.longitude, 0, 10);
    // A point the device kept for an hour before sending it.
    const taken = Date.now() - 3_600_000;
    const sent = Date.now();
    await host.ingest(f.app, f.user, bodyOf([{ at: taken, latitude: inside.lat, longitude: inside.lon, accuracy: 10 }]), ctx.now());

    const [fired] = await ctx.store.firings.history({ app_id: f.app._id, user_id: f.user._id }, 0, 10);
    expect(fired?.date).toBe(taken);
    expect(fired!.received_at).toBeGreaterThanOrEqual(sent);
    expect(fired!.received_at).toBeLessThanOrEqual(Date.now());
  });
});
