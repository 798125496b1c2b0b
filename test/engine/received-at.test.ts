// `received_at` (issue 40): when the service received the point behind a firing, a stored point and
// a timeline entry; for a dwell the clock fired, when the tick was applied.
import { afterEach, describe, expect, it } from 'vitest';
import { enginePorts } from '../../src/plugins/engine.js';
import { EngineHost } from '../../src/engine/host.js';
import { destinationPoint } from '../../src/geo/distance.js';
import type { Firing } from '../../src/schemas/firing.js';
import { openCtx, removeDir, seed, tempDataDir, until } from '../delivery/helpers.js';
import { bodyOf } from './helpers/track.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe('received_at', () => {
  it('is the time the point was received on its firing, its stored rows and its timeline entries; a tick\'s when applied', async () => {
    const dir = await tempDataDir();
    cleanup.push(() => removeDir(dir));
    const ctx = await openCtx(dir);
    cleanup.push(() => ctx.store.close());
    const f = await seed(ctx, { type: 'message', text: 'here' });
    await ctx.store.applications.update(f.app._id, { set: { store_history: true } });
    const dwell = await seed(ctx, { type: 'message', text: 'stayed', trigger_after: 1 });
    const firings: Firing[] = [];
    const ports = enginePorts(ctx.store, ctx.delivery);
    const host = new EngineHost(ctx, { ...ports, recordFirings: async (fs, gated) => { firings.push(...fs); await ports.recordFirings(fs, gated); } }, { shards: 1 });
    cleanup.push(() => host.close());
    await host.start();

    // Received a while ago (the request's `now`), sent later than that by the device's clock.
    const received = Date.now() - 60_000;
    const inside = destinationPoint(f.place.latitude, f.place.longitude, 0, 10);
    const app = (await ctx.store.applications.get(f.app._id))!;
    await host.ingest(app, f.user, bodyOf([{ at: received - 5_000, latitude: inside.lat, longitude: inside.lon, accuracy: 10 }]), received);

    expect(firings.map((x) => x.received_at)).toEqual([received]);
    const [stored] = await ctx.store.locations.newest(f.app._id, f.user._id, {}, 10);
    expect(stored!.received_at).toBe(received);
    expect((await ctx.store.lastLocations.of(f.app._id, f.user._id))!.received_at).toBe(received);
    const { entries } = await ctx.store.timeline.ofUser(f.app._id, f.user._id, {}, { offset: 0, limit: 10 });
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) expect(e.received_at).toBe(received);

    // A dwell the clock fires: received when the tick was applied, after the point.
    const there = destinationPoint(dwell.place.latitude, dwell.place.longitude, 0, 10);
    const sent = Date.now();
    await host.ingest(dwell.app, dwell.user, bodyOf([{ at: sent, latitude: there.lat, longitude: there.lon, accuracy: 10 }]), sent);
    const fired = await until(() => firings.find((x) => x.user_id === dwell.user._id && x.delay_s === 1));
    expect(fired.received_at).toBeGreaterThanOrEqual(fired.at);
  });
});
