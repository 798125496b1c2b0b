// The Engine in-process: routing, batching, geofence changes and membership. The same engine with
// real Piscina threads (order, restore, crash recovery) is in engine-threads.e2e.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { destinationPoint } from '../../src/geo/distance.js';
import { fenceKey } from '../../workers/protocol.js';
import { C, engines, fence, HostStore, S, startEngine, USERS, walk } from './helpers/engine-world.js';

afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

describe('Engine in-process', () => {
  it('routes a user to the same shard every time and remaps point indexes', async () => {
    const store = new HostStore();
    const e = await startEngine({ inProcess: true, shards: 3 }, store);
    expect(USERS.map((u) => e.shardOf(u.userId))).toEqual(USERS.map((u) => e.shardOf(u.userId)));
    expect(new Set(USERS.map((u) => e.shardOf(u.userId))).size).toBe(3);
    const pts = walk(0);
    const r = await e.applyPoints(pts);
    // Everyone starts at C, inside p0 (enter trigger): one FIRE per user, pointing at its own point.
    const fires = r.effects.filter((x) => x.type === 'FIRE');
    expect(fires).toHaveLength(USERS.length);
    for (const f of fires) expect(pts[f.point!]!.userId).toBe(f.userId);
  });

  it('reads bodies in their users\' shards and gives the results in request order, rows of one merged batch, each request\'s newest kept', async () => {
    const store = new HostStore();
    const e = await startEngine({ inProcess: true, shards: 3 }, store);
    const body = (lat: number, at: number) => JSON.stringify([{ date: new Date(at).toISOString(), location: { position: { latitude: lat, longitude: C.lon } } }]);
    const at = 2_000_000_000_000;
    const requests = USERS.map((u, i) => ({ userId: u.userId, text: i === 4 ? 'not json' : body(C.lat, at + i * S), now: at + 100 * S, all: false }));
    const r = await e.applyBodies(requests);
    expect(r.results).toHaveLength(USERS.length);
    expect(r.results[4]).toEqual({ error: 'Request body is not valid JSON', code: 'invalid_request' });
    const kept = [...r.stored.row];
    r.results.forEach((res, i) => {
      if ('error' in res) return;
      // The request's row is its user's, with its own point, kept (as the user's last location).
      expect(r.batch.users[r.batch.user[res.first]!]).toBe(USERS[i]!.userId);
      expect(r.batch.at[res.newest]).toBe(at + i * S);
      expect(r.batch.recv[res.newest]).toBe(at + 100 * S);
      expect(kept).toContain(res.newest);
    });
    expect(kept).toHaveLength(USERS.length - 1);
    // Everyone but user-4 starts at C, inside p0: one FIRE each, at its own row.
    const fires = r.effects.filter((x) => x.type === 'FIRE');
    expect(fires).toHaveLength(USERS.length - 1);
    for (const f of fires) expect(r.batch.users[r.batch.user[f.point!]!]).toBe(f.userId);
  });

  it('geofence changes reach every shard for the next point; inspect shows the pairs', async () => {
    const store = new HostStore();
    const e = await startEngine({ inProcess: true }, store);
    const far = destinationPoint(C.lat, C.lon, 0, 5000);
    const pts = USERS.map((u) => ({ userId: u.userId, at: 10, lat: far.lat, lon: far.lon }));
    expect((await e.applyPoints(pts)).effects).toEqual([]);
    await e.upsertGeofences([fence('tn', 'pn', { lat: far.lat, lon: far.lon })]);
    const r = await e.applyPoints(pts.map((p) => ({ ...p, at: 20 })));
    expect(r.effects.filter((x) => x.type === 'FIRE')).toHaveLength(USERS.length);
    const v = await e.inspect('user-3', { triggerId: 'tn' });
    expect(v!.pairs).toMatchObject([{ triggerId: 'tn', placeId: 'pn', record: { state: 'inside', since: 20 } }]);
    const removed = await e.removeGeofences([fenceKey('tn', 'pn')]);
    expect(removed.changes).toHaveLength(USERS.length);
    expect([...e.geofences()].some((f) => f.key === fenceKey('tn', 'pn'))).toBe(false);
  });

  it('membership decides which geofences a user meets', async () => {
    const store = new HostStore();
    const e = await startEngine({ inProcess: true }, store);
    await e.setMembership('user-0', [], 'UTC');
    const r = await e.applyPoints([{ userId: 'user-0', at: 1, lat: C.lat, lon: C.lon }]);
    expect(r.effects).toEqual([]);
  });
});
