// recordFirings writes a batch in bulk and reads its documents from a process-wide cache: replays
// of whole and half-written batches, batch order of a user's messages on the live stream, the
// number of group-commit turns a batch costs, and the cache following changes.
import { beforeEach, describe, expect, it } from 'vitest';
import { recordFirings, type Firing } from '../../src/delivery/firings.js';
import { DocCache } from '../../src/delivery/doc-cache.js';
import type { LayerBounds } from '../../src/delivery/payload.js';
import { createLayer } from '../../src/services/layers.js';
import { createPlace, updatePlace } from '../../src/services/places.js';
import { updateTrigger } from '../../src/services/triggers.js';
import { updateUser } from '../../src/services/users.js';
import type { ServiceContext } from '../../src/services/context.js';
import type { UserDoc } from '../../src/store/documents.js';
import type { FiringRecord } from '../../src/store/firings.js';
import { GroupCommit } from '../../src/store/sqlite/commit.js';
import { firingOf, seed, storePerTest, userDoc, type Fixture } from './helpers.js';

let ctx: ServiceContext;
storePerTest((c) => (ctx = c));

async function moreUsers(f: Fixture, n: number): Promise<UserDoc[]> {
  const users = Array.from({ length: n }, () => userDoc(f.app._id));
  for (const u of users) await ctx.store.users.insert(u);
  return users;
}

/** Firings and callbacks of the applications seeded, and the messages of their message firings. */
const apps: string[] = [];
async function counts() {
  const all = (await Promise.all(apps.map((app) => ctx.store.firings.history({ app_id: app, gated: true }, 0, 1_000)))).flat();
  const messages = await Promise.all(all.filter((f) => f.type === 'message').map((f) => ctx.store.messages.get(f.app_id, f.event_id)));
  return { firings: all.length, callbacks: all.filter((f) => f.type === 'callback').length, messages: messages.filter((m) => m !== null).length };
}
beforeEach(() => {
  apps.length = 0;
});
async function seedApp(...args: Parameters<typeof seed>) {
  const f = await seed(...args);
  apps.push(f.app._id);
  return f;
}

describe('recordFirings in bulk', () => {
  it('a replayed batch writes nothing twice and reports every firing as a duplicate, in input order', async () => {
    const cb = await seedApp(ctx, { type: 'callback', url: 'https://hooks.example.com/x' });
    const msg = await seedApp(ctx, { type: 'message', text: 'hi' });
    const users = await moreUsers(cb, 4);
    const firings: Firing[] = [
      ...users.map((u) => firingOf(cb, { user_id: u._id })),
      firingOf(msg), firingOf(msg, { triggered_on: 'leave' }),
      firingOf(cb, { user_id: 'deleted-user' }),
    ];
    const first = await recordFirings(ctx.delivery, firings);
    expect(first.map((o) => [o.event_id, o.action, o.duplicate])).toEqual(firings.map((f, i) => [
      f.event_id, i < 4 ? 'callback' : i < 6 ? 'message' : 'skipped', false,
    ]));
    expect(first[6]).toMatchObject({ reason: 'user not found' });
    expect(await counts()).toEqual({ firings: 6, callbacks: 4, messages: 2 });

    const again = await recordFirings(ctx.delivery, firings);
    expect(again.map((o) => [o.action, o.duplicate])).toEqual(first.map((o) => [o.action, o.action !== 'skipped']));
    expect(await counts()).toEqual({ firings: 6, callbacks: 4, messages: 2 });
  });

  it('the same event id twice in one first run is written once; the second is the duplicate', async () => {
    const f = await seedApp(ctx, { type: 'callback', url: 'https://hooks.example.com/x' });
    const one = firingOf(f);
    expect((await recordFirings(ctx.delivery, [one, firingOf(f), one])).map((o) => o.duplicate)).toEqual([false, false, true]);
    expect(await counts()).toEqual({ firings: 2, callbacks: 2, messages: 0 });
  });

  it('completes a half-written first run: missing firings and messages, each from what is there', async () => {
    const cb = await seedApp(ctx, { type: 'callback', url: 'https://hooks.example.com/x' });
    const msg = await seedApp(ctx, { type: 'message', text: 'hi' });
    const [a, b, c] = [firingOf(cb), firingOf(cb), firingOf(msg)];
    // As a crash midway may leave a first run on MongoDB: b's and c's firings stored, a's not, c's
    // message lost; b's callback was meanwhile delivered by a restarted dispatcher.
    await recordFirings(ctx.delivery, [b, c]);
    await ctx.store.messages.removeForUser(msg.app._id, msg.user._id);
    const [leased] = await ctx.store.firings.leaseDue([b.event_id], 'restarted', Date.now() + 60_000, Date.now());
    leased!.attempts = 2;
    await ctx.store.firings.finish(leased!, { status: 'delivered', at: Date.now(), durationMs: 3 }, Date.now());

    const out = await recordFirings(ctx.delivery, [a, b, c]);
    expect(out.map((o) => o.duplicate)).toEqual([false, true, true]);
    expect(await counts()).toEqual({ firings: 3, callbacks: 2, messages: 1 });
    expect(await ctx.store.firings.get(a.event_id)).toMatchObject<Partial<FiringRecord>>({ status: 'pending', attempts: 0, url: 'https://hooks.example.com/x' });
    expect(await ctx.store.firings.get(b.event_id)).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(await ctx.store.messages.get(msg.app._id, c.event_id)).toMatchObject({ text: 'hi' });
  });

  it('writes a batch of 30 firings in a couple of group-commit turns, not two per firing', async () => {
    const cb = await seedApp(ctx, { type: 'callback', url: 'https://hooks.example.com/x' });
    const msg = await seedApp(ctx, { type: 'message', text: 'hi' });
    const users = await moreUsers(cb, 10);
    const firings = [...users.flatMap((u) => [firingOf(cb, { user_id: u._id }), firingOf(cb, { user_id: u._id })]), ...Array.from({ length: 10 }, () => firingOf(msg))];
    await recordFirings(ctx.delivery, [firingOf(cb), firingOf(msg)]); // documents cached, like a running engine
    const turns = countTurns();
    try {
      await recordFirings(ctx.delivery, firings);
    } finally {
      turns.stop();
    }
    expect(await counts()).toEqual({ firings: 32, callbacks: 21, messages: 11 });
    expect(turns.count).toBeLessThanOrEqual(2);
  });

  it('a user\'s messages reach their live stream in batch order, and are marked delivered', async () => {
    const f = await seedApp(ctx, { type: 'message', text: 'hello' });
    const got: string[] = [];
    const socket = { isOpen: () => true, close: () => undefined, send: async (text: string) => void got.push(JSON.parse(text).message.message_id) };
    await ctx.delivery.live.attach(ctx.delivery, f.app._id, f.user._id, 'UTC', socket);
    const firings = Array.from({ length: 6 }, (_, i) => firingOf(f, { at: Date.now() - i * 1000 }));
    await recordFirings(ctx.delivery, firings);
    expect(got).toEqual(firings.map((x) => x.event_id));
    const stored = await Promise.all(got.map((id) => ctx.store.messages.get(f.app._id, id)));
    expect(stored.map((m) => m?.delivered_at !== undefined)).toEqual(Array(6).fill(true));
    ctx.delivery.live.stop();
  });
});

describe('document cache', () => {
  it('a trigger\'s new url, a place\'s new name and a user\'s new name are in the next firing, through the services', async () => {
    const f = await seedApp(ctx, { type: 'callback', url: 'https://hooks.example.com/old' });
    const before = firingOf(f);
    await recordFirings(ctx.delivery, [before]);
    await updateTrigger(ctx, f.app._id, f.trigger._id, { url: 'https://hooks.example.com/new' });
    await updatePlace(ctx, f.app._id, f.place._id, { name: 'Powells City of Books' });
    await updateUser(ctx, f.app._id, f.user._id, { name: 'Grace' });
    const after = firingOf(f);
    await recordFirings(ctx.delivery, [after]);
    // The queued one follows the trigger to its new URL; its signed body stays as it was fired.
    const queued = (await ctx.store.firings.get(before.event_id))!;
    expect(queued).toMatchObject({ url: 'https://hooks.example.com/new' });
    expect(JSON.parse(queued.payload!)).toMatchObject({ trigger: { callback_url: 'https://hooks.example.com/old' } });
    const row = (await ctx.store.firings.get(after.event_id))!;
    expect(row).toMatchObject({ url: 'https://hooks.example.com/new' });
    expect(JSON.parse(row.payload!)).toMatchObject({
      trigger: { callback_url: 'https://hooks.example.com/new' }, place: { name: 'Powells City of Books' }, user: { name: 'Grace' },
    });
  });

  it('a trigger deleted in the store is skipped at once; a change no feed reports is seen after the TTL', async () => {
    let clock = 0;
    ctx.delivery.docs = new DocCache(ctx.store, 5_000, () => clock);
    const f = await seedApp(ctx, { type: 'callback', url: 'https://hooks.example.com/x' });
    await recordFirings(ctx.delivery, [firingOf(f)]);
    // Another process renames the place: this process hears nothing of it.
    await ctx.store.places.update(f.app._id, f.place._id, { set: { name: 'Elsewhere' } });
    const cached = firingOf(f);
    await recordFirings(ctx.delivery, [cached]);
    expect(JSON.parse((await ctx.store.firings.get(cached.event_id))!.payload!)).toMatchObject({ place: { name: 'Powells' } });
    clock += 5_001;
    const fresh = firingOf(f);
    await recordFirings(ctx.delivery, [fresh]);
    expect(JSON.parse((await ctx.store.firings.get(fresh.event_id))!.payload!)).toMatchObject({ place: { name: 'Elsewhere' } });

    await ctx.store.triggers.removeMany(f.app._id, [f.trigger._id]);
    expect(await recordFirings(ctx.delivery, [firingOf(f)])).toEqual([expect.objectContaining({ action: 'skipped', reason: 'trigger not found' })]);
  });

  it("follows places into a layer's bounds: a new place, and one moved away changes both layers", async () => {
    const f = await seedApp(ctx, { type: 'callback', url: 'https://hooks.example.com/x' });
    const other = (await createLayer(ctx, f.app._id, { name: 'other' })).body.layer_id;
    const east = (await ctx.delivery.bounds.get(f.app._id, f.layer._id)) as LayerBounds;
    const far = await createPlace(ctx, f.app._id, f.layer._id, { latitude: 45.6, longitude: -122.5, radius: 100 });
    const wider = (await ctx.delivery.bounds.get(f.app._id, f.layer._id)) as LayerBounds;
    expect(wider.ne.latitude).toBeGreaterThan(east.ne.latitude);
    expect(await ctx.delivery.bounds.get(f.app._id, other)).toBe(false);
    await updatePlace(ctx, f.app._id, far.body.place_id, { layer_id: other });
    expect(await ctx.delivery.bounds.get(f.app._id, f.layer._id)).toEqual(east);
    expect(((await ctx.delivery.bounds.get(f.app._id, other)) as LayerBounds).center.latitude).toBeCloseTo(45.6, 3);
  });

  it('hands out frozen documents, one read shared, and keeps no misses', async () => {
    const f = await seedApp(ctx, { type: 'callback', url: 'https://hooks.example.com/x' });
    const docs = new DocCache(ctx.store);
    const t = (await docs.trigger(f.app._id, f.trigger._id))!;
    expect(Object.isFrozen(t) && Object.isFrozen(t.extra)).toBe(true);
    expect(await docs.trigger(f.app._id, f.trigger._id)).toBe(t);
    expect(await docs.user(f.app._id, 'nobody')).toBeNull();
  });
});

/** Counts the store's group commits (one per event-loop turn that wrote). */
function countTurns() {
  const proto = GroupCommit.prototype as unknown as { commit(): void };
  const commit = proto.commit;
  const state = { count: 0, stop: () => void (proto.commit = commit) };
  proto.commit = function (this: GroupCommit) {
    state.count++;
    commit.call(this);
  };
  return state;
}
