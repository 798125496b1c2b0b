// recordFirings, the engine's entry into delivery: what it writes for each kind of trigger, that
// every write is keyed by the event id (replays write nothing twice), and what it refuses.
import { describe, expect, it } from 'vitest';
import { recordFirings } from '../../src/delivery/firings.js';
import { listTriggerHistory } from '../../src/services/trigger-history.js';
import type { ServiceContext } from '../../src/services/context.js';
import type { MessageDoc } from '../../src/store/documents.js';
import { firingOf, seed, storePerTest } from './helpers.js';

let ctx: ServiceContext;
storePerTest((c) => (ctx = c));

describe('recordFirings', () => {
  it('a message trigger stores the message (id = event id) and its firing, which has no callback', async () => {
    const f = await seed(ctx, { type: 'message', text: 'Welcome!', url: 'https://x.example/' });
    const firing = firingOf(f, { triggered_on: 'leave', delay_s: 30 });
    expect(await recordFirings(ctx.delivery, [firing])).toEqual([{ event_id: firing.event_id, action: 'message', duplicate: false }]);
    const m = await ctx.store.messages.get(f.app._id, firing.event_id);
    expect(m).toMatchObject<Partial<MessageDoc>>({
      user_id: f.user._id, text: 'Welcome!', url: 'https://x.example/', trigger_id: f.trigger._id, place_id: f.place._id,
      layer_id: f.layer._id, event_id: firing.event_id, date: firing.at,
    });
    const stored = await ctx.store.firings.get(firing.event_id);
    expect(stored).toMatchObject({ type: 'message', triggered_on: 'leave', delay_s: 30, user_id: f.user._id, date: firing.at });
    for (const field of ['status', 'url', 'payload', 'next_attempt_at']) expect(stored).not.toHaveProperty(field);
    const listed = await listTriggerHistory(ctx, f.app._id, {}, { offset: 0, limit: 10 });
    expect(listed.history).toMatchObject([{ event_id: firing.event_id, type: 'message', delivery: { status: 'pending', attempts: 0 } }]);
  });

  it('a replayed message firing stores one message', async () => {
    const f = await seed(ctx, { type: 'message', text: 'once' });
    const firing = firingOf(f);
    await recordFirings(ctx.delivery, [firing]);
    expect(await recordFirings(ctx.delivery, [firing, firing])).toEqual([
      { event_id: firing.event_id, action: 'message', duplicate: true },
      { event_id: firing.event_id, action: 'message', duplicate: true },
    ]);
    expect((await ctx.store.messages.page(f.app._id, f.user._id, { offset: 0, limit: 1 })).total).toBe(1);
    expect(await ctx.store.firings.count({ app_id: f.app._id })).toBe(1);
  });

  it('completes a message firing that a crash cut short (firing stored, message not)', async () => {
    const f = await seed(ctx, { type: 'message', text: 'late but there' });
    const firing = firingOf(f);
    await recordFirings(ctx.delivery, [firing]);
    // As if the process died between the two writes (MongoDB): the user's one message gone.
    await ctx.store.messages.removeForUser(f.app._id, f.user._id);
    expect(await recordFirings(ctx.delivery, [firing])).toEqual([{ event_id: firing.event_id, action: 'message', duplicate: true }]);
    expect(await ctx.store.messages.get(f.app._id, firing.event_id)).toMatchObject({ text: 'late but there', event_id: firing.event_id });
    expect(await ctx.store.firings.count({ app_id: f.app._id })).toBe(1);
  });

  it('keeps batch order and wakes the dispatcher once for new callbacks', async () => {
    const f = await seed(ctx, { type: 'callback', url: 'https://hooks.example.com/x' });
    let wakes = 0;
    ctx.delivery.dispatcher = { wake: () => void wakes++, deliverNow: async () => null };
    const firings = [firingOf(f), firingOf(f), firingOf(f)];
    const out = await recordFirings(ctx.delivery, firings);
    expect(out.map((o) => o.event_id)).toEqual(firings.map((x) => x.event_id));
    expect(wakes).toBe(1);
    await recordFirings(ctx.delivery, firings);
    expect(wakes).toBe(1);
    ctx.delivery.dispatcher = undefined;
  });

  it('skips firings whose trigger, place or user was deleted meanwhile', async () => {
    const f = await seed(ctx, { type: 'callback', url: 'https://hooks.example.com/x' });
    await ctx.store.triggers.removeMany(f.app._id, [f.trigger._id]);
    const firing = firingOf(f);
    expect(await recordFirings(ctx.delivery, [firing, firingOf(f, { user_id: 'gone' })])).toEqual([
      { event_id: firing.event_id, action: 'skipped', duplicate: false, reason: 'trigger not found' },
      expect.objectContaining({ action: 'skipped' }),
    ]);
    expect(await ctx.store.firings.count({ app_id: f.app._id, gated: true })).toBe(0);
  });

  it('refuses a batch with an event id that cannot be a webhook-id, writing nothing', async () => {
    const f = await seed(ctx, { type: 'callback', url: 'https://hooks.example.com/x' });
    await expect(recordFirings(ctx.delivery, [firingOf(f), firingOf(f, { event_id: 'has.dot' })])).rejects.toThrow(/event_id/);
    expect(await ctx.store.firings.count({ app_id: f.app._id, gated: true })).toBe(0);
  });

  it('stores the payload as built, so a retry sends what was true at firing time', async () => {
    const f = await seed(ctx, { type: 'callback', url: 'https://hooks.example.com/x' });
    const firing = firingOf(f);
    await recordFirings(ctx.delivery, [firing]);
    await ctx.store.users.update(f.app._id, f.user._id, { set: { name: 'Renamed' } });
    const row = (await ctx.store.firings.get(firing.event_id))!;
    expect(typeof row.payload).toBe('string');
    expect(JSON.parse(row.payload!)).toMatchObject({ event_id: firing.event_id, user: { name: 'Ada', user_id: f.user._id }, place: { extra: { shelf: 3 } } });
  });
});
