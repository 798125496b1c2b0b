// Users walking through places, end to end: location/update over real HTTP into the real engine
// (worker threads, embedded store on disk), callbacks into a real receiver that verifies their
// Standard Webhooks signatures, messages read back with message/list. Each test has its own
// application, so the tests run side by side on one server.
import { describe, it } from 'vitest';
import { engineSuite } from './helpers/suite.js';
import { Track, updatePoint, offset, wholeSecond } from './helpers/track.js';
import { waitFor } from './helpers/wait.js';
import { seconds, summary } from './helpers/world.js';

const CENTRE = { latitude: 45.5165, longitude: -122.6764 };
const PLACE = { ...CENTRE, radius: 100 };

const suite = engineSuite();
const world = suite.world;
/** Device times ten minutes ago: well inside the accepted range, whole seconds. */
const start = () => wholeSecond(Date.now()) - 600_000;

describe.concurrent('walking through a callback place', () => {
  it('sends exactly one signed enter callback with the §5 payload, dated and located at the entering point', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const user = await w.user();
    const t = await w.trigger({ type: 'callback', url: hook.url, place_name: 'Powells', extra: { aisle: 'blue' } }, PLACE);
    const track = new Track(CENTRE, start()).at(-390, 0).walkTo(390, 0, { speed: 2, every: 10 });
    await w.send(user, track.points());

    const entering = track.positions().find((p) => p.distance <= 100)!;
    const [ev] = await hook.waitFor(1);
    // Delivered (the outbox row is done), so no further request can come: exactly one.
    const firings = await waitFor('the delivery to be recorded', async () => {
      const f = await w.firings(user.user_id);
      return f[0]?.delivery.status === 'delivered' && f;
    });
    expect(firings).toHaveLength(1);
    expect(hook.requests).toHaveLength(1);
    expect(hook.requests[0]!.verifyError).toBeUndefined();
    expect(hook.requests[0]!.webhookId).toBe(ev.event_id);
    expect(firings[0]!.event_id).toBe(ev.event_id);

    expect(Object.keys(ev).sort()).toEqual(['date', 'date_ts', 'event_id', 'layer', 'location', 'place', 'trigger', 'triggered_delay', 'triggered_on', 'user']);
    expect(ev).toMatchObject({
      triggered_on: 'enter',
      triggered_delay: '0',
      event_id: expect.any(String),
      date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/),
      date_ts: seconds(entering.at),
      layer: {
        layer_id: w.app.default_layer_id, bounds: expect.any(Object), description: expect.any(String), extra: {}, icon: expect.any(String),
        name: expect.any(String), public: expect.any(Number), public_userlist: expect.any(Number), settings: false, subscription: false,
        trigger_rate_limit: 0, type: 'default', user_id: expect.any(String),
      },
      place: {
        place_id: t.place_id, latitude: CENTRE.latitude, longitude: CENTRE.longitude, radius: 100, active: 1, name: 'Powells',
        display_name: 'Powells', description: expect.any(String), extra: {}, map: expect.any(String), time_from: '00:00:00', time_to: '00:00:00',
      },
      trigger: {
        trigger_id: t.trigger_id, place_id: t.place_id, type: 'callback', callback_url: hook.url, trigger_on: 'enter',
        trigger_after: '0', one_time: '0', extra: { aisle: 'blue' },
      },
      user: {
        user_id: user.user_id, is_anonymous: '1', has_custom_username: '0', has_push_token: '0', public_location: expect.any(String),
        timezone: 'UTC', timezone_offset: '+0000', devices: { apns_dev: [], apns_live: [], c2dm: [], gcm: [] }, extra: {},
        username: expect.any(String), display_name: expect.any(String), name: expect.any(String), bio: expect.any(String),
      },
      location: {
        date_ts: seconds(entering.at),
        location: {
          type: 'point',
          position: { latitude: entering.latitude, longitude: entering.longitude, horizontal_accuracy: 10 },
        },
        raw: { battery: 80 },
      },
    });
    expect(ev.date).toBe(ev.location.date);
  });

  it('a message trigger fills message/list and never POSTs; a callback trigger with text never messages', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const viewUrl = w.endpoint(); // the message's "View" link: must never be POSTed to
    const user = await w.user();
    const place = await w.place(PLACE, { name: 'Bookshop' });
    const msg = await w.trigger({ place_id: place, type: 'message', text: 'Welcome to the bookshop', url: viewUrl.url });
    const cb = await w.trigger({ place_id: place, type: 'callback', url: hook.url, text: 'this text is never sent' });
    await w.send(user, new Track(CENTRE, start()).at(-300, 0).walkTo(300, 0, { speed: 1.5, every: 20 }).points());

    // Both firings were recorded before location/update answered.
    const firings = await w.firings(user.user_id);
    expect(firings.map((f) => [f.type, f.trigger.trigger_id]).sort()).toEqual([['callback', cb.trigger_id], ['message', msg.trigger_id]].sort());
    const messages = await w.messages(user);
    expect(messages.map((m) => [m.text, m.trigger_id, m.place_id])).toEqual([['Welcome to the bookshop', msg.trigger_id, place]]);

    const [ev] = await hook.waitFor(1);
    expect(ev.trigger).toMatchObject({ trigger_id: cb.trigger_id, type: 'callback' });
    await waitFor('the callback to be delivered', async () => (await w.firings(user.user_id)).find((f) => f.type === 'callback')?.delivery.status === 'delivered');
    expect(hook.requests).toHaveLength(1);
    expect(viewUrl.requests).toHaveLength(0);
    expect(await w.messages(user)).toHaveLength(1);
  });
});

describe.concurrent('enter, leave and recurrence', () => {
  it('a leave trigger (trigger_on "exit") fires once, at the first point beyond radius plus margin', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const user = await w.user();
    const t = await w.trigger({ type: 'callback', url: hook.url, trigger_on: 'exit' }, PLACE);
    const track = new Track(CENTRE, start()).at(-390, 0).walkTo(390, 0, { speed: 2, every: 10 });
    await w.send(user, track.points());

    // In at ≤ 100 m; out only beyond 100 + max(20 m, 10 %) = 120 m.
    const pos = track.positions();
    const inAt = pos.findIndex((p) => p.distance <= 100);
    const leaving = pos.slice(inAt).find((p) => p.distance > 120)!;
    const [ev] = await hook.waitFor(1);
    expect(ev).toMatchObject({
      triggered_on: 'leave', date_ts: seconds(leaving.at),
      trigger: { trigger_id: t.trigger_id, trigger_on: 'leave' },
      location: { location: { position: { latitude: leaving.latitude, longitude: leaving.longitude } } },
    });
    expect(summary(await w.firings(user.user_id))).toEqual([['leave', t.trigger_id, t.place_id, seconds(leaving.at)]]);
  });

  it('a recurring trigger fires on every visit, a one_time trigger once ever', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const place = await w.place(PLACE, { name: 'Cafe' });
    const recurring = await w.trigger({ place_id: place, type: 'message', text: 'again', one_time: 0 });
    const once = await w.trigger({ place_id: place, type: 'message', text: 'once', one_time: 1 });
    const track = new Track(CENTRE, start()).at(-300, 0);
    // Three visits, each posted in its own request.
    for (const x of [300, -300, 300]) {
      track.walkTo(x, 0, { speed: 2, every: 15 });
      await w.send(user, track.take());
    }
    const firings = await w.firings(user.user_id);
    expect(firings.filter((f) => f.trigger.trigger_id === recurring.trigger_id)).toHaveLength(3);
    expect(firings.filter((f) => f.trigger.trigger_id === once.trigger_id)).toHaveLength(1);
    expect(firings.every((f) => f.triggered_on === 'enter')).toBe(true);
    expect((await w.messages(user)).map((m) => m.text).sort()).toEqual(['again', 'again', 'again', 'once']);
  });
});

describe.concurrent('boundary jitter and accuracy', () => {
  it('a jittery phone hovering in the hysteresis band: one enter, no leave storm; one leave when it really goes', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const outsider = await w.user();
    const place = await w.place(PLACE, { name: 'Park' });
    const enter = await w.trigger({ place_id: place, type: 'message', text: 'in' });
    const leave = await w.trigger({ place_id: place, type: 'message', text: 'out', trigger_on: 'leave' });

    // In once (90 m), then 60 points at 98-118 m: in or in the band (100-120 m), never out.
    const track = new Track(CENTRE, start(), { seed: 7, accuracy: 30 }).at(-300, 0).walkTo(-90, 0, { speed: 2, every: 15 });
    track.hover({ distance: 108, spread: 10, count: 60, every: 5 });
    const hovering = track.positions().slice(-60).map((p) => p.distance);
    expect(Math.min(...hovering)).toBeGreaterThan(97);
    expect(Math.max(...hovering)).toBeLessThan(119);
    expect(hovering.filter((d) => d > 100).length).toBeGreaterThan(30); // mostly in the band
    await w.send(user, track.take());
    expect(summary(await w.firings(user.user_id)).map((s) => s[1])).toEqual([enter.trigger_id]);

    track.walkTo(400, 0, { speed: 2, every: 15 });
    await w.send(user, track.take());
    expect(summary(await w.firings(user.user_id)).map((s) => s[1])).toEqual([enter.trigger_id, leave.trigger_id]);

    // Never closer than 101 m: a user who hovers in the band from outside never enters.
    const near = new Track(CENTRE, start(), { seed: 8, accuracy: 30 }).at(-300, 0).walkTo(-112, 0, { speed: 2, every: 15 });
    near.hover({ distance: 110, spread: 9, count: 60, every: 5 });
    await w.send(outsider, near.points());
    expect(await w.firings(outsider.user_id)).toEqual([]);
  });

  it('a point with poor accuracy (500 m on a 100 m place) moves nothing, in either direction', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const place = await w.place(PLACE, { name: 'Library' });
    await w.trigger({ place_id: place, type: 'message', text: 'in' });
    await w.trigger({ place_id: place, type: 'message', text: 'out', trigger_on: 'leave' });
    const t0 = start();
    const far = offset(CENTRE, 1000, 0);
    const triggered = async () => (await w.firings(user.user_id)).map((f) => f.triggered_on);

    await w.send(user, [updatePoint(offset(CENTRE, -300, 0), t0), updatePoint(CENTRE, t0 + 10_000, 500)]);
    expect(await triggered()).toEqual([]);
    await w.send(user, [updatePoint(CENTRE, t0 + 20_000, 10)]);
    expect(await triggered()).toEqual(['enter']);
    await w.send(user, [updatePoint(far, t0 + 30_000, 500)]);
    expect(await triggered()).toEqual(['enter']);
    // 100 m is still usable on a 100 m place.
    await w.send(user, [updatePoint(far, t0 + 40_000, 100)]);
    expect(await triggered()).toEqual(['enter', 'leave']);
  });
});

describe.concurrent('device time order', () => {
  it('a batch out of order is applied in device-time order; an older point moves nothing but is kept in history', async ({ expect }) => {
    const w = await world();
    await w.storeHistory();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'hi' }, PLACE);
    const leave = await w.trigger({ place_id: t.place_id, type: 'message', text: 'bye', trigger_on: 'leave' });
    const t0 = start();
    const west = offset(CENTRE, -300, 0);
    const east = offset(CENTRE, 300, 0);
    // Posted as [t0+30 east, t0+10 west, t0+20 centre]: in device order that is a walk through.
    await w.send(user, [updatePoint(east, t0 + 30_000), updatePoint(west, t0 + 10_000), updatePoint(CENTRE, t0 + 20_000)]);
    expect(summary(await w.firings(user.user_id))).toEqual([
      ['enter', t.trigger_id, t.place_id, seconds(t0 + 20_000)],
      ['leave', leave.trigger_id, t.place_id, seconds(t0 + 30_000)],
    ]);

    // Older than the last applied point (t0+30): it would be an enter, but it is history only.
    await w.send(user, [updatePoint(CENTRE, t0 + 25_000)]);
    expect(await w.firings(user.user_id)).toHaveLength(2);
    const hist = await w.api.get('/1/location/history', { token: user.access_token, query: { count: 10 } });
    expect(hist.body.points.map((p: { date_ts: number }) => p.date_ts)).toEqual([10, 20, 25, 30].map((s) => seconds(t0 + s * 1000)));
    const last = await w.api.get('/1/location/last', { token: user.access_token });
    expect(last.body.date_ts).toBe(seconds(t0 + 30_000));
  });
});

describe.concurrent('delivery', () => {
  it('a receiver that fails (503, then 500) and recovers gets the event once, with the same webhook-id on every attempt', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint().plan([503, 500]);
    const user = await w.user();
    await w.trigger({ type: 'callback', url: hook.url }, PLACE);
    await w.send(user, new Track(CENTRE, start()).at(-300, 0).walkTo(300, 0, { speed: 2, every: 20 }).points());

    const [ev] = await hook.waitFor(1);
    const [firing] = await waitFor('the delivery to be recorded', async () => {
      const f = await w.firings(user.user_id);
      return f[0]?.delivery.status === 'delivered' && f;
    });
    expect(hook.requests.map((r) => r.status)).toEqual([503, 500, 200]);
    expect(new Set(hook.requests.map((r) => r.webhookId))).toEqual(new Set([ev.event_id]));
    // Same bytes each time, each one signed.
    expect(new Set(hook.requests.map((r) => r.body)).size).toBe(1);
    expect(hook.requests.every((r) => r.verifyError === undefined)).toBe(true);
    expect(firing).toMatchObject({ event_id: ev.event_id, delivery: { status: 'delivered', attempts: 3 } });
  });
});
