// The host's two-stage pipeline (batch N persisted while batch N+1 is in the shards): a shard
// rebuilt after a crash is seeded only once every result returned before has been persisted, so
// a pair moved by batch N is not moved (and fired) again by batch N+1; a user's points are
// applied and acknowledged in order; and a phone's first requests wait for its membership.
import { afterEach, describe, expect, it } from 'vitest';
import { destinationPoint } from '../../src/geo/distance.js';
import { enginePorts } from '../../src/plugins/engine.js';
import { EngineHost } from '../../src/engine/host.js';
import type { LocationPoint } from '../../src/schemas/location-points.js';
import type { ServiceContext } from '../../src/services/context.js';
import type { ApplicationDoc, UserDoc } from '../../src/store/documents.js';
import { openCtx, removeDir, seed, tempDataDir, userDoc, type Fixture } from '../delivery/helpers.js';
import { bodyOf } from './helpers/track.js';

let dirs: string[] = [];
let hosts: EngineHost[] = [];
afterEach(async () => {
  for (const h of hosts) await h.close();
  for (const d of dirs) await removeDir(d);
  hosts = [];
  dirs = [];
});

async function world(): Promise<{ ctx: ServiceContext; f: Fixture; host: EngineHost }> {
  const dir = await tempDataDir();
  dirs.push(dir);
  const ctx = await openCtx(dir);
  const f = await seed(ctx, { type: 'message', text: 'hello' });
  const host = new EngineHost(ctx, enginePorts(ctx.store, ctx.delivery), { shards: 1, shard: { testHooks: true }, tickIntervalMs: 60_000 });
  hosts.push(host);
  await host.start();
  return { ctx, f, host };
}

function point(f: Fixture, metresNorth: number, at: number): LocationPoint {
  const p = destinationPoint(f.place.latitude, f.place.longitude, 0, metresNorth);
  return { at, latitude: p.lat, longitude: p.lon, accuracy: 10, raw: null };
}

function send(ctx: ServiceContext, host: EngineHost, app: ApplicationDoc, user: UserDoc, points: LocationPoint[]) {
  return host.ingest(app, user, bodyOf(points), ctx.now());
}

const firings = (ctx: ServiceContext, appId: string, userId: string) =>
  ctx.store.firings.history({ app_id: appId, user_id: userId, gated: true }, 0, 1_000);

describe('engine host pipeline', () => {
  it('a shard crashed while the previous batch is still being persisted is rebuilt with that batch: nothing fires twice', async () => {
    const { ctx, f, host } = await world();
    const t0 = Date.now() - 60_000;
    await send(ctx, host, f.app, f.user, [point(f, 1000, t0)]);

    // Hold the machine-record writes of the next batch for a while; note when a rebuild reads them.
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let seeded = false;
    const machines = ctx.store.machines;
    const apply = machines.apply.bind(machines);
    const seeds = machines.seeds.bind(machines);
    machines.apply = async (rows) => (await gate, apply(rows));
    machines.seeds = () => ((seeded = true), seeds());

    const entering = send(ctx, host, f.app, f.user, [point(f, 0, t0 + 1000)]); // batch N: enter, fires
    await new Promise((r) => setTimeout(r, 50));
    await host.engine.crashShard(0);
    const staying = send(ctx, host, f.app, f.user, [point(f, 10, t0 + 2000)]); // batch N+1: still inside
    // Long enough for a rebuild that does not wait to read the records before batch N's are in.
    setTimeout(() => open(), 1500);
    await Promise.all([entering, staying]);

    expect(seeded).toBe(true);
    const rows = await firings(ctx, f.app._id, f.user._id);
    expect(rows.map((r) => r.triggered_on)).toEqual(['enter']);
    expect((await host.inspect(f.user._id))?.pairs.map((p) => p.record.state)).toEqual(['inside']);
  });

  it('acknowledges a user’s requests in the order they were sent, each after its points were applied', async () => {
    const { ctx, f, host } = await world();
    const t0 = Date.now() - 60_000;
    const acks: number[] = [];
    // Out, in, out, in, ... without waiting: each request is its own batch or shares one.
    const sends = Array.from({ length: 12 }, (_, i) =>
      send(ctx, host, f.app, f.user, [point(f, i % 2 === 0 ? 1000 : 0, t0 + i * 1000)]).then(() => acks.push(i)));
    await Promise.all(sends);
    expect(acks).toEqual([...acks].sort((a, b) => a - b));
    const rows = await firings(ctx, f.app._id, f.user._id);
    expect(rows.map((r) => r.date).sort((a, b) => a - b)).toEqual([1, 3, 5, 7, 9, 11].map((i) => t0 + i * 1000));
  });

  it('a new user’s concurrent first requests all wait for the membership: none is evaluated against nothing', async () => {
    const { ctx, f, host } = await world();
    const late = userDoc(f.app._id); // created after the engine started: unknown to the shards
    await ctx.store.users.insert(late);
    const t0 = Date.now() - 60_000;
    await Promise.all([
      send(ctx, host, f.app, late, [point(f, 1000, t0)]),
      send(ctx, host, f.app, late, [point(f, 0, t0 + 1000)]),
    ]);
    expect((await firings(ctx, late.app_id, late._id)).map((r) => r.date)).toEqual([t0 + 1000]);
  });

  it('counts every visit of a batch on its place, several users and several visits of one user', async () => {
    const { ctx, f, host } = await world();
    const other = userDoc(f.app._id);
    await ctx.store.users.insert(other);
    const t0 = Date.now() - 60_000;
    await Promise.all([
      send(ctx, host, f.app, f.user, [point(f, 1000, t0), point(f, 0, t0 + 1000), point(f, 1000, t0 + 2000), point(f, 0, t0 + 3000)]),
      send(ctx, host, f.app, other, [point(f, 1000, t0), point(f, 0, t0 + 1000)]),
    ]);
    expect((await ctx.store.places.get(f.app._id, f.place._id))?.visits).toBe(3);
  });
});
