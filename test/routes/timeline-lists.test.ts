// Asking without the other id: every pair of a user with its state (trigger/state?user_id=…&
// include_outside=1), a trigger's decisions across users (trigger/timeline?trigger_id=… without
// user_id); a deleted trigger's timeline and state readable while its history is; trigger/state
// explaining from the last applied point, not a late older one. A real app, its API only.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { offset, updatePoint, wholeSecond } from '../engine/helpers/track.js';
import { seconds, World } from '../engine/helpers/world.js';
import { expectErrorShape } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

const CENTRE = { latitude: 48.8566, longitude: 2.3522 };
const at = (east: number, north = 0) => offset(CENTRE, east, north);
const PLACE = { ...CENTRE, radius: 100 };
const start = () => wholeSecond(Date.now()) - 600_000;
const visit = (t0: number, east = 0) => [updatePoint(at(east - 300), t0), updatePoint(at(east), t0 + 10_000), updatePoint(at(east + 300), t0 + 20_000)];

let service: TestService;
beforeAll(async () => {
  service = await startApp();
});
afterAll(() => service.close());
const world = () => World.create(service.api.base);

describe.concurrent('every pair of a user, with its state', () => {
  it('lists the outside pairs too, across triggers and layers, paged', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const inside = await w.trigger({ type: 'message', text: 'a', key: 'front', place_name: 'Front' }, PLACE);
    const far = await w.trigger({ type: 'message', text: 'b', place_name: 'Far' }, { ...at(5000), radius: 100 });
    const layer = await w.layer({ name: 'Shops' });
    const shopA = await w.place({ ...at(0, 3000), radius: 50 }, { layer_id: layer, name: 'Shop A' });
    const shopB = await w.place({ ...at(0, 4000), radius: 50 }, { layer_id: layer, name: 'Shop B' });
    const onLayer = await w.trigger({ layer_id: layer, type: 'message', text: 'c' });
    await w.subscribe(layer, user.user_id);
    // Ends at the first place's centre.
    await w.send(user, [updatePoint(at(-300), start()), updatePoint(at(0), start() + 10_000)]);

    const ask = async (query: Record<string, unknown>) => {
      const res = await w.api.get('/1/trigger/state', { token: w.token, query: { user_id: user.user_id, ...query } });
      expect(res.status).toBe(200);
      return res.body;
    };
    // As before without the flag: the machines that are not outside.
    expect((await ask({})).machines.map((m: any) => [m.trigger_id, m.state])).toEqual([[inside.trigger_id, 'inside']]);

    const all = await ask({ include_outside: 1 });
    const got = all.machines.map((m: any) => [m.trigger_id, m.place_id, m.state, m.explanation_code ?? null]);
    expect(got).toHaveLength(4);
    expect(got).toEqual(expect.arrayContaining([
      [inside.trigger_id, inside.place_id, 'inside', null],
      [far.trigger_id, far.place_id, 'outside', 'zone_out'],
      [onLayer.trigger_id, shopA, 'outside', 'zone_out'],
      [onLayer.trigger_id, shopB, 'outside', 'zone_out'],
    ]));
    expect(all.paging).toEqual({ limit: 25, total: 4 });
    const front = all.machines.find((m: any) => m.trigger_id === inside.trigger_id);
    expect(front).toMatchObject({ trigger_key: 'front', place_name: 'Front' });
    // 5 km east of the centre, less its 100 m radius.
    const farPair = all.machines.find((m: any) => m.trigger_id === far.trigger_id);
    expect(farPair.explanation).toMatch(/^The last point is 49\d\d m outside the place\.$/);
    expect(all.machines.find((m: any) => m.place_id === shopB).place_name).toBe('Shop B');

    const first = await ask({ include_outside: 1, limit: 3 });
    expect(first.paging).toEqual({ next_offset: 3, limit: 3, total: 4 });
    const rest = await ask({ include_outside: 1, limit: 3, offset: 3 });
    expect(rest.machines).toHaveLength(1);
    const paged = [...first.machines, ...rest.machines].map((m: any) => `${m.trigger_id}:${m.place_id}`);
    expect(new Set(paged).size).toBe(4);
  });

  it("answers 404 for another application's user", async () => {
    const w = await world();
    const other = await world();
    const user = await w.user();
    const res = await other.api.get('/1/trigger/state', { token: other.token, query: { user_id: user.user_id, include_outside: 1 } });
    expectErrorShape(res.body, 404, 'not_found');
  });
});

describe.concurrent("a trigger's decisions across users", () => {
  it('lists who came near its place and what was decided, newest first, in a bounded span', async ({ expect }) => {
    const w = await world();
    const [ann, bob, cat] = [await w.user(), await w.user(), await w.user()];
    const t = await w.trigger({ type: 'message', text: 'hi', key: 'door', place_name: 'Door' }, PLACE);
    await w.trigger({ type: 'message', text: 'elsewhere' }, { ...at(5000), radius: 100 });
    const t0 = start();
    await w.send(ann, visit(t0));
    await w.send(bob, visit(t0 + 60_000));
    await w.send(cat, visit(t0 + 120_000, 5000));

    const res = await w.api.get('/1/trigger/timeline', { token: w.token, query: { trigger_id: t.trigger_id } });
    expect(res.status).toBe(200);
    expect(res.body.trigger_id).toBe(t.trigger_id);
    expect(res.body.user_id).toBeUndefined();
    expect(res.body.entries.map((e: any) => [e.user_id, e.kind, e.event, e.date_ts])).toEqual([
      [bob.user_id, 'transition', 'leave', seconds(t0 + 80_000)],
      [bob.user_id, 'fired', 'enter', seconds(t0 + 70_000)],
      [ann.user_id, 'transition', 'leave', seconds(t0 + 20_000)],
      [ann.user_id, 'fired', 'enter', seconds(t0 + 10_000)],
    ]);
    expect(res.body.entries[0]).toMatchObject({ trigger_key: 'door', place_name: 'Door' });
    expect(res.body.paging).toEqual({ limit: 100, total: 4 });

    const page = await w.api.get('/1/trigger/timeline', { token: w.token, query: { trigger_id: t.trigger_id, count: 1, offset: 1 } });
    expect(page.body.entries.map((e: any) => e.date_ts)).toEqual([seconds(t0 + 70_000)]);
    // Before ann's visit ended.
    const early = await w.api.get('/1/trigger/timeline', { token: w.token, query: { trigger_id: t.trigger_id, before: seconds(t0 + 15_000) } });
    expect(early.body.entries.map((e: any) => e.user_id)).toEqual([ann.user_id]);
  });

  it('refuses a span over 31 days, and a call naming neither user nor trigger', async () => {
    const w = await world();
    const t = await w.trigger({ type: 'message', text: 'hi' }, PLACE);
    const wide = await w.api.get('/1/trigger/timeline', { token: w.token, query: { trigger_id: t.trigger_id, after: '2026-01-01T00:00:00Z', before: '2026-03-01T00:00:00Z' } });
    expectErrorShape(wide.body, 400, 'invalid_input');
    const neither = await w.api.get('/1/trigger/timeline', { token: w.token });
    expectErrorShape(neither.body, 400, 'missing_input');
  });

  it("answers 404 for another application's trigger", async () => {
    const w = await world();
    const other = await world();
    const t = await w.trigger({ type: 'message', text: 'hi' }, PLACE);
    const res = await other.api.get('/1/trigger/timeline', { token: other.token, query: { trigger_id: t.trigger_id } });
    expectErrorShape(res.body, 404, 'not_found');
  });
});

describe.concurrent('a deleted trigger', () => {
  it('keeps its timeline and state readable while its history is; still 404 for another application', async ({ expect }) => {
    const w = await world();
    const other = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'hi', key: 'gone', place_name: 'Old door' }, PLACE);
    const t0 = start();
    await w.send(user, visit(t0));
    await w.ok(`/1/trigger/delete/${t.trigger_id}`);
    expect(await w.firings(user.user_id)).toHaveLength(1);

    const mine = await w.api.get('/1/trigger/timeline', { token: w.token, query: { user_id: user.user_id, trigger_id: t.trigger_id } });
    expect(mine.status).toBe(200);
    expect(mine.body.entries.map((e: any) => [e.kind, e.date_ts])).toEqual([['transition', seconds(t0 + 20_000)], ['fired', seconds(t0 + 10_000)]]);
    expect(mine.body.entries[0]).toMatchObject({ trigger_deleted: true, trigger_key: null, place_name: 'Old door' });
    const across = await w.api.get('/1/trigger/timeline', { token: w.token, query: { trigger_id: t.trigger_id } });
    expect(across.body.entries).toHaveLength(2);

    const state = await w.api.get(`/1/trigger/state/${t.trigger_id}`, { token: w.token, query: { user_id: user.user_id } });
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({ trigger_id: t.trigger_id, deleted: true });
    expect(state.body.machines).toEqual([expect.objectContaining({ place_id: t.place_id, state: 'outside', explanation_code: 'trigger_deleted' })]);
    expect(state.body.machines[0].timeline).toHaveLength(2);
    const whole = await w.api.get(`/1/trigger/state/${t.trigger_id}`, { token: w.token });
    expect(whole.body).toEqual({ trigger_id: t.trigger_id, deleted: true, machines: [] });

    for (const res of [
      await other.api.get('/1/trigger/timeline', { token: other.token, query: { trigger_id: t.trigger_id } }),
      await other.api.get(`/1/trigger/state/${t.trigger_id}`, { token: other.token }),
    ]) expectErrorShape(res.body, 404, 'not_found');
    // A trigger deleted before it decided anything has nothing to show: 404, as one never made.
    const unused = await w.trigger({ type: 'message', text: 'never' }, { ...at(9000), radius: 100 });
    await w.ok(`/1/trigger/delete/${unused.trigger_id}`);
    const none = await w.api.get(`/1/trigger/state/${unused.trigger_id}`, { token: w.token });
    expectErrorShape(none.body, 404, 'not_found');
  });
});

describe.concurrent('trigger/state explains from the last applied point', () => {
  it('a late point older than the last applied one changes neither the point shown nor the explanation', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'hi' }, PLACE);
    const t0 = start();
    // In the band (110 m from the centre of a 100 m circle), then a point dated earlier, far away, arriving late.
    await w.send(user, [updatePoint(at(110), t0 + 60_000)]);
    await w.send(user, [updatePoint(at(2000), t0)]);
    const res = await w.api.get(`/1/trigger/state/${t.trigger_id}`, { token: w.token, query: { user_id: user.user_id } });
    const [pair] = res.body.machines;
    expect(pair).toMatchObject({ state: 'outside', zone: 'band', explanation_code: 'zone_band', last_point: { date_ts: seconds(t0 + 60_000) } });
    expect(Math.round(pair.distance_m)).toBe(110);
    const mine = await w.api.get('/1/trigger/state', { token: w.token, query: { user_id: user.user_id, include_outside: 1 } });
    expect(mine.body.last_location.date_ts).toBe(seconds(t0 + 60_000));
    expect(mine.body.machines[0]).toMatchObject({ explanation_code: 'zone_band' });
  });
});
