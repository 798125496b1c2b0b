// Dwell and gates, end to end: `trigger_after` fires after N seconds inside (also when the phone
// goes silent: the host's clock tick fires it), date ranges and daily windows (in the user's
// timezone) suppress firings, and a layer's trigger_rate_limit spaces firings of one trigger.
import { describe, it } from 'vitest';
import { engineSuite } from './helpers/suite.js';
import { distanceM, offset, Track, updatePoint, wholeSecond } from './helpers/track.js';
import { seconds, summary } from './helpers/world.js';

const CENTRE = { latitude: -33.8688, longitude: 151.2093 };
const PLACE = { ...CENTRE, radius: 100 };

const suite = engineSuite();
const world = suite.world;
const start = () => wholeSecond(Date.now()) - 600_000;
const at = (east: number, north = 0) => offset(CENTRE, east, north);

/** "HH:MM" of instant `ms` in `timeZone`, shifted by `minutes`. */
function localTime(ms: number, timeZone: string, minutes = 0): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(ms + minutes * 60_000);
  const get = (t: string) => parts.find((p) => p.type === t)!.value;
  return `${get('hour')}:${get('minute')}`;
}

describe.concurrent('dwell (trigger_after)', () => {
  it('fires once after N seconds inside, dated at the deadline, located at a point inside', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const user = await w.user();
    const t = await w.trigger({ type: 'callback', url: hook.url, trigger_after: 30 }, PLACE);
    // In at the first point ≤ 100 m, stays for a minute (a point every 10 s), then walks off.
    const track = new Track(CENTRE, start()).at(-300, 0).walkTo(-50, 0, { speed: 2.5, every: 10 });
    const entered = track.positions().find((p) => p.distance <= 100)!;
    track.walkTo(50, 0, { speed: 1, every: 10 }).walkTo(400, 0, { speed: 2.5, every: 10 });
    await w.send(user, track.points());

    expect(summary(await w.firings(user.user_id))).toEqual([['enter', t.trigger_id, t.place_id, seconds(entered.at) + 30]]);
    const [ev] = await hook.waitFor(1);
    expect(ev).toMatchObject({ triggered_on: 'enter', triggered_delay: '30', date_ts: seconds(entered.at) + 30, trigger: { trigger_after: '30' } });
    // The location is the last point at or before the firing, and it is inside the place.
    const pos = ev.location.location.position;
    expect(ev.location.date_ts).toBeLessThanOrEqual(ev.date_ts);
    expect(distanceM(CENTRE, pos)).toBeLessThanOrEqual(100);
  });

  it('a dwell reached only by a late point that is already outside reports the last point inside', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const user = await w.user();
    await w.trigger({ type: 'callback', url: hook.url, trigger_after: 30 }, PLACE);
    const t0 = start();
    // Posted together after a gap: inside at t0 and t0+20, far away at t0+60. The dwell deadline
    // (t0+30) passed while the user was still inside, as far as the server can tell.
    await w.send(user, [updatePoint(at(0), t0), updatePoint(at(10), t0 + 20_000), updatePoint(at(900), t0 + 60_000)]);
    const [ev] = await hook.waitFor(1);
    expect(ev).toMatchObject({ triggered_delay: '30', date_ts: seconds(t0) + 30 });
    expect(ev.location).toMatchObject({ date_ts: seconds(t0 + 20_000), location: { position: at(10) } });
  });

  it('with a silent phone (one point inside, then nothing) the clock fires it at entry + N', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const user = await w.user();
    const t = await w.trigger({ type: 'callback', url: hook.url, trigger_after: 2 }, PLACE);
    const t0 = wholeSecond(Date.now());
    await w.send(user, [updatePoint(at(20), t0)]);
    const [ev] = await hook.waitFor(1);
    expect(ev).toMatchObject({
      triggered_on: 'enter', triggered_delay: '2', date_ts: seconds(t0) + 2,
      trigger: { trigger_id: t.trigger_id }, location: { date_ts: seconds(t0), location: { position: at(20) } },
    });
    expect(await w.firings(user.user_id)).toHaveLength(1);
  });

  it('leaving before N fires nothing and leaves no deadline behind', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'stayed', trigger_after: 30 }, PLACE);
    const t0 = wholeSecond(Date.now());
    await w.send(user, [updatePoint(at(0), t0)]);
    const pending = await suite.server.app.engine.inspect(user.user_id, { triggerId: t.trigger_id });
    expect(pending?.pairs.map((p) => [p.record.state, p.record.deadline])).toEqual([['inside', t0 + 30_000]]);
    await w.send(user, [updatePoint(at(10), t0 + 5_000), updatePoint(at(500), t0 + 10_000)]);
    expect(await w.firings(user.user_id)).toEqual([]);
    // Outside is the absence of a record: no deadline is left to fire later.
    expect((await suite.server.app.engine.inspect(user.user_id, { triggerId: t.trigger_id }))?.pairs).toEqual([]);
  });
});

describe.concurrent('gates', () => {
  it('an expired date_to or a future date_from (on the trigger or on the place) fires nothing', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const now = Math.floor(Date.now() / 1000);
    const place = await w.place(PLACE);
    await w.trigger({ place_id: place, type: 'message', text: 'expired', date_to: now - 86_400 });
    await w.trigger({ place_id: place, type: 'message', text: 'not yet', date_from: now + 86_400 });
    const open = await w.trigger({ place_id: place, type: 'message', text: 'open', date_from: now - 86_400, date_to: now + 86_400 });
    const expiredPlace = await w.place({ ...at(1000), radius: 100 }, { date_to: now - 3600 });
    await w.trigger({ place_id: expiredPlace, type: 'message', text: 'expired place' });

    await w.send(user, new Track(CENTRE, wholeSecond(Date.now()) - 300_000).at(-300, 0).walkTo(1300, 0, { speed: 5, every: 10 }).points());
    expect(summary(await w.firings(user.user_id)).map((s) => s[1])).toEqual([open.trigger_id]);
    expect((await w.messages(user)).map((m) => m.text)).toEqual(['open']);
  });

  it('a trigger whose date_to is moved into the past stops firing from the next point', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'sale' }, PLACE);
    const track = new Track(CENTRE, wholeSecond(Date.now()) - 300_000).at(-300, 0).walkTo(300, 0, { speed: 5, every: 10 });
    await w.send(user, track.take());
    expect(await w.firings(user.user_id)).toHaveLength(1);
    await w.ok(`/1/trigger/update/${t.trigger_id}`, { date_to: Math.floor(Date.now() / 1000) - 3600 });
    track.walkTo(-300, 0, { speed: 5, every: 10 });
    await w.send(user, track.take());
    expect(await w.firings(user.user_id)).toHaveLength(1);
  });

  it("a daily time window is read in the user's timezone (account/profile) and fires only inside it", async ({ expect }) => {
    const w = await world();
    const kolkata = await w.user();
    const utc = await w.user();
    const t0 = wholeSecond(Date.now()) - 120_000;
    // The engine knows this user (in UTC) before the timezone changes.
    await w.send(kolkata, [updatePoint(at(-3000), t0 - 60_000)]);
    const profile = await w.api.post('/1/account/profile', { token: kolkata.access_token, json: { timezone: 'Asia/Kolkata' } });
    expect(profile.status).toBe(200);
    const tz = 'Asia/Kolkata';
    const place = await w.place(PLACE);
    // Open now in Kolkata; in UTC (5:30 behind) the same wall-clock window is closed.
    const open = await w.trigger({ place_id: place, type: 'message', text: 'open', time_from: localTime(t0, tz, -60), time_to: localTime(t0, tz, 60) });
    await w.trigger({ place_id: place, type: 'message', text: 'later', time_from: localTime(t0, tz, 120), time_to: localTime(t0, tz, 180) });

    const walk = () => new Track(CENTRE, t0).at(-300, 0).walkTo(300, 0, { speed: 5, every: 10 }).points();
    await w.send(kolkata, walk());
    await w.send(utc, walk());
    expect(summary(await w.firings(kolkata.user_id)).map((s) => s[1])).toEqual([open.trigger_id]);
    expect(await w.firings(utc.user_id)).toEqual([]);
  });

  it('a gated firing does not spend a one_time trigger: it fires on the first visit inside its dates', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const t0 = wholeSecond(Date.now()) - 7_200_000;
    const t = await w.trigger({ type: 'message', text: 'once', one_time: 1, date_from: seconds(t0) + 1800 }, PLACE);
    const visit = (s: number) => [updatePoint(at(-300), t0 + s * 1000), updatePoint(at(0), t0 + (s + 10) * 1000), updatePoint(at(300), t0 + (s + 20) * 1000)];
    // Before date_from, at it (inclusive), and again later.
    await w.send(user, [...visit(0), ...visit(1790), ...visit(3000)]);
    expect(summary(await w.firings(user.user_id))).toEqual([['enter', t.trigger_id, t.place_id, seconds(t0) + 1800]]);
  });

  it("a layer's trigger_rate_limit spaces firings of one trigger for one user, across the layer's places", async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const layer = await w.layer({ trigger_rate_limit: 60 });
    const p1 = await w.place({ ...at(0), radius: 100 }, { layer_id: layer });
    const p2 = await w.place({ ...at(1000), radius: 100 }, { layer_id: layer });
    const t = await w.trigger({ layer_id: layer, type: 'message', text: 'deal' });
    await w.subscribe(layer, user.user_id);
    const other = await w.user();
    await w.subscribe(layer, other.user_id);
    const t0 = start();
    const away = at(500, 500);
    const visits = (u: number) => [
      updatePoint(at(0), t0 + u), updatePoint(away, t0 + u + 10_000), // fires
      updatePoint(at(1000), t0 + u + 20_000), updatePoint(away, t0 + u + 30_000), // 20 s later, another place: suppressed
      updatePoint(at(0), t0 + u + 59_000), updatePoint(away, t0 + u + 65_000), // 59 s: suppressed
      updatePoint(at(1000), t0 + u + 70_000), // 70 s after the last firing: fires
    ];
    await w.send(user, visits(0));
    expect(summary(await w.firings(user.user_id))).toEqual([
      ['enter', t.trigger_id, p1, seconds(t0)],
      ['enter', t.trigger_id, p2, seconds(t0 + 70_000)],
    ]);
    // Per user: another user's firings do not count against this one.
    await w.send(other, visits(5_000));
    expect(await w.firings(other.user_id)).toHaveLength(2);
  });
});
