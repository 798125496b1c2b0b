// Layers, subscriptions and live changes, end to end: a layer trigger covers every place of its
// layer (places added later too) for the users subscribed to it; the default layer covers every
// user; and creating, updating or deleting triggers, places and layers takes effect for the very
// next point. Observed through trigger/history, which is written before location/update answers.
import { describe, it } from 'vitest';
import { engineSuite } from './helpers/suite.js';
import { offset, Track, updatePoint, wholeSecond } from './helpers/track.js';
import { seconds, summary, type World } from './helpers/world.js';

const CENTRE = { latitude: 52.52, longitude: 13.405 };

const suite = engineSuite();
const world = suite.world;
const start = () => wholeSecond(Date.now()) - 600_000;
const at = (east: number, north = 0) => offset(CENTRE, east, north);
const circle = (east: number, radius = 100) => ({ ...at(east), radius });
const placeIds = async (w: World, userId: string) => (await w.firings(userId)).map((f) => f.place.place_id);

describe.concurrent('layer triggers', () => {
  it('fire at every place of the layer, a place added after the trigger included, only for subscribed users', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const layer = await w.layer({ name: 'Shops' });
    const a = await w.place(circle(0), { layer_id: layer, name: 'A' });
    const b = await w.place(circle(1000), { layer_id: layer, name: 'B' });
    const t = await w.trigger({ layer_id: layer, type: 'callback', url: hook.url });
    const c = await w.place(circle(2000), { layer_id: layer, name: 'C' });
    const member = await w.user();
    const stranger = await w.user();
    await w.subscribe(layer, member.user_id);

    const walk = () => new Track(CENTRE, start()).at(-300, 0).walkTo(2300, 0, { speed: 5, every: 20 }).points();
    await w.send(member, walk());
    await w.send(stranger, walk());
    expect(await placeIds(w, member.user_id)).toEqual([a, b, c]);
    expect(await w.firings(stranger.user_id)).toEqual([]);

    const events = await hook.waitFor(3);
    expect(events.map((e) => [e.place.place_id, e.layer.layer_id, e.trigger.layer_id, e.trigger.place_id])).toEqual([
      [a, layer, layer, undefined], [b, layer, layer, undefined], [c, layer, layer, undefined],
    ]);
    expect(events.every((e) => e.trigger.trigger_id === t.trigger_id && e.user.user_id === member.user_id)).toBe(true);
  });

  it('subscribing takes effect for the next point, unsubscribing stops it', async ({ expect }) => {
    const w = await world();
    const layer = await w.layer();
    await w.place(circle(0), { layer_id: layer });
    const t = await w.trigger({ layer_id: layer, type: 'message', text: 'hello layer' });
    const user = await w.user();
    const t0 = start();

    await w.send(user, [updatePoint(at(0), t0)]);
    expect(await w.firings(user.user_id)).toEqual([]);
    // Standing inside: subscribing makes the next point an entering one.
    await w.subscribe(layer, user.user_id);
    await w.send(user, [updatePoint(at(0), t0 + 10_000)]);
    expect(summary(await w.firings(user.user_id)).map((s) => [s[1], s[3]])).toEqual([[t.trigger_id, seconds(t0 + 10_000)]]);

    await w.unsubscribe(layer, user.user_id);
    await w.send(user, [updatePoint(at(-500), t0 + 20_000), updatePoint(at(0), t0 + 30_000), updatePoint(at(500), t0 + 40_000), updatePoint(at(0), t0 + 50_000)]);
    expect(await w.firings(user.user_id)).toHaveLength(1);
  });

  it('a trigger on the default layer fires for every user, without any subscription', async ({ expect }) => {
    const w = await world();
    const p = await w.place(circle(0));
    const t = await w.trigger({ layer_id: w.app.default_layer_id, type: 'message', text: 'everyone' });
    const users = [await w.user(), await w.user()];
    for (const u of users) await w.send(u, new Track(CENTRE, start()).at(-300, 0).walkTo(300, 0, { speed: 3, every: 20 }).points());
    for (const u of users) expect(summary(await w.firings(u.user_id)).map((s) => [s[0], s[1], s[2]])).toEqual([['enter', t.trigger_id, p]]);
  });
});

describe.concurrent('changes take effect for the next point', () => {
  it('a trigger created while the user stands inside fires on the next point', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const place = await w.place(circle(0));
    const t0 = start();
    await w.send(user, [updatePoint(at(0), t0)]);
    const t = await w.trigger({ place_id: place, type: 'message', text: 'new' });
    await w.send(user, [updatePoint(at(5), t0 + 10_000)]);
    expect(summary(await w.firings(user.user_id))).toEqual([['enter', t.trigger_id, place, seconds(t0 + 10_000)]]);
  });

  it('a trigger updated from enter to leave: walking in fires nothing, walking out fires leave', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'bye' }, circle(0));
    await w.ok(`/1/trigger/update/${t.trigger_id}`, { trigger_on: 'leave' });
    const track = new Track(CENTRE, start()).at(-300, 0).walkTo(0, 0, { speed: 3, every: 20 });
    await w.send(user, track.take());
    expect(await w.firings(user.user_id)).toEqual([]);
    track.walkTo(300, 0, { speed: 3, every: 20 });
    await w.send(user, track.take());
    expect(summary(await w.firings(user.user_id)).map((s) => s[0])).toEqual(['leave']);
  });

  it('a deleted trigger fires nothing, not even for a user inside it', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const enter = await w.trigger({ type: 'message', text: 'in' }, circle(0));
    const leave = await w.trigger({ place_id: enter.place_id, type: 'message', text: 'out', trigger_on: 'leave' });
    const track = new Track(CENTRE, start()).at(-300, 0).walkTo(0, 0, { speed: 3, every: 20 });
    await w.send(user, track.take());
    expect(summary(await w.firings(user.user_id)).map((s) => s[1])).toEqual([enter.trigger_id]);
    await w.ok(`/1/trigger/delete/${leave.trigger_id}`);
    await w.ok(`/1/trigger/delete/${enter.trigger_id}`);
    track.walkTo(300, 0, { speed: 3, every: 20 }).walkTo(0, 0, { speed: 3, every: 20 });
    await w.send(user, track.take());
    expect(await w.firings(user.user_id)).toHaveLength(1);
  });

  it('a place moved away from a user inside it: the next point is outside and leave fires; the new spot can be entered', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const place = await w.place(circle(0));
    await w.trigger({ place_id: place, type: 'message', text: 'in' });
    await w.trigger({ place_id: place, type: 'message', text: 'out', trigger_on: 'leave' });
    const t0 = start();
    await w.send(user, [updatePoint(at(-300), t0), updatePoint(at(0), t0 + 10_000)]);
    expect((await w.firings(user.user_id)).map((f) => f.triggered_on)).toEqual(['enter']);

    await w.ok(`/1/place/update/${place}`, { ...at(1000) });
    // Not a step taken: the place left the user.
    await w.send(user, [updatePoint(at(0), t0 + 20_000)]);
    expect(summary(await w.firings(user.user_id)).map((s) => [s[0], s[3]])).toEqual([['enter', seconds(t0 + 10_000)], ['leave', seconds(t0 + 20_000)]]);
    await w.send(user, [updatePoint(at(1000), t0 + 30_000)]);
    expect((await w.firings(user.user_id)).map((f) => f.triggered_on)).toEqual(['enter', 'leave', 'enter']);
  });

  it('a place grown around a user: the next point enters it', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'in' }, circle(0));
    const t0 = start();
    await w.send(user, [updatePoint(at(150), t0)]);
    expect(await w.firings(user.user_id)).toEqual([]);
    await w.ok(`/1/place/update/${t.place_id}`, { radius: 200 });
    await w.send(user, [updatePoint(at(150), t0 + 10_000)]);
    expect(summary(await w.firings(user.user_id))).toEqual([['enter', t.trigger_id, t.place_id, seconds(t0 + 10_000)]]);
  });

  it("a layer's new trigger_rate_limit holds from the next point", async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const layer = await w.layer();
    await w.place(circle(0), { layer_id: layer });
    const t = await w.trigger({ layer_id: layer, type: 'message', text: 'deal' });
    await w.subscribe(layer, user.user_id);
    const t0 = start();
    const visit = (s: number) => [updatePoint(at(0), t0 + s * 1000), updatePoint(at(500), t0 + (s + 10) * 1000)];
    await w.send(user, [...visit(0), ...visit(20)]);
    expect((await w.firings(user.user_id)).map((f) => f.date_ts)).toEqual([0, 20].map((s) => seconds(t0 + s * 1000)));
    await w.ok(`/1/layer/update/${layer}`, { trigger_rate_limit: 3600 });
    await w.send(user, [...visit(40), ...visit(60)]);
    expect(summary(await w.firings(user.user_id)).map((s) => [s[1], s[3]])).toEqual([0, 20].map((s) => [t.trigger_id, seconds(t0 + s * 1000)]));
  });

  it("a place moved to a layer the user is not in stops being the user's: no leave, no enter", async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const place = await w.place(circle(0));
    await w.trigger({ place_id: place, type: 'message', text: 'in' });
    await w.trigger({ place_id: place, type: 'message', text: 'out', trigger_on: 'leave' });
    const t0 = start();
    await w.send(user, [updatePoint(at(-300), t0), updatePoint(at(0), t0 + 10_000)]);
    expect((await w.firings(user.user_id)).map((f) => f.triggered_on)).toEqual(['enter']);
    const other = await w.layer();
    await w.ok(`/1/place/update/${place}`, { layer_id: other });
    await w.send(user, [updatePoint(at(300), t0 + 20_000), updatePoint(at(0), t0 + 30_000), updatePoint(at(300), t0 + 40_000)]);
    expect((await w.firings(user.user_id)).map((f) => f.triggered_on)).toEqual(['enter']);
  });

  it('another application\'s user never fires this application\'s triggers', async ({ expect }) => {
    const w = await world();
    const other = await world();
    await w.trigger({ type: 'message', text: 'mine' }, circle(0));
    await w.trigger({ layer_id: w.app.default_layer_id, type: 'message', text: 'mine too' });
    const stranger = await other.user();
    await other.send(stranger, new Track(CENTRE, start()).at(-300, 0).walkTo(300, 0, { speed: 3, every: 20 }).points());
    expect(await other.firings(stranger.user_id)).toEqual([]);
    const mine = await w.api.get('/1/trigger/history', { token: w.token });
    expect(mine.body.history).toEqual([]);
  });

  it('a deleted place and a deleted layer take their triggers with them', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const gone = await w.trigger({ type: 'message', text: 'place gone' }, circle(0));
    const layer = await w.layer();
    await w.place(circle(1000), { layer_id: layer });
    await w.trigger({ layer_id: layer, type: 'message', text: 'layer gone' });
    await w.subscribe(layer, user.user_id);
    const kept = await w.trigger({ type: 'message', text: 'kept' }, circle(2000));

    await w.ok(`/1/place/delete/${gone.place_id}`);
    await w.ok(`/1/layer/delete/${layer}`);
    await w.send(user, new Track(CENTRE, start()).at(-300, 0).walkTo(2300, 0, { speed: 5, every: 20 }).points());
    expect(summary(await w.firings(user.user_id)).map((s) => s[1])).toEqual([kept.trigger_id]);
  });
});
