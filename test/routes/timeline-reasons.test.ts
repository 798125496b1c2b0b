// The numbers in the timeline's reasons (trigger/timeline): a time window gate says the window, the
// zone and the user's local time; a rate limit gate the limit, the earlier firing (when, where) and
// when a firing is allowed again; a visit too short for its dwell how long it lasted; a point in the
// band the distance a leave needs. Entries name their place, layer and trigger. Every expected
// number is worked out from the scenario, against a real server.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { offset, updatePoint, wholeSecond } from '../engine/helpers/track.js';
import { seconds, World } from '../engine/helpers/world.js';
import { startApp, type TestService } from '../helpers/server.js';

const CENTRE = { latitude: 48.8566, longitude: 2.3522 };
const PLACE = { ...CENTRE, radius: 100 };
const at = (east: number) => offset(CENTRE, east, 0);
const start = () => wholeSecond(Date.now()) - 600_000;
/** Out, in, out, 10 s apart. */
const visit = (t0: number) => [updatePoint(at(-300), t0), updatePoint(at(0), t0 + 10_000), updatePoint(at(300), t0 + 20_000)];

let service: TestService;
beforeAll(async () => {
  service = await startApp();
});
afterAll(() => service.close());
const suite = { world: () => World.create(service.api.base) };

async function timeline(w: World, query: Record<string, unknown>): Promise<any[]> {
  const res = await w.api.get('/1/trigger/timeline', { token: w.token, query });
  if (res.status !== 200) throw new Error(`trigger/timeline: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.entries as any[]).slice().reverse();
}

/** `HH:MM:SS` of `ms` in `zone`. */
function localClock(ms: number, zone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: zone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(ms);
}
const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60) % 24).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

describe.concurrent('reasons with their numbers', () => {
  it('a time window gate: the window, the zone used and the user\'s local time then', async ({ expect }) => {
    const w = await suite.world();
    const zone = 'America/Los_Angeles';
    const user = await w.user({ timezone: zone });
    const t0 = start();
    const entered = t0 + 10_000;
    const local = localClock(entered, zone);
    const minutes = Number(local.slice(0, 2)) * 60 + Number(local.slice(3, 5));
    // Two to three hours after the user's local time of the entry.
    const from = hhmm(minutes + 120);
    const to = hhmm(minutes + 180);
    await w.trigger({ type: 'message', text: 'later', time_from: from, time_to: to }, PLACE);
    await w.send(user, visit(t0));
    const [gated] = await timeline(w, { user_id: user.user_id });
    expect(gated).toMatchObject({ kind: 'gated', gate: 'time_window', date_ts: seconds(entered) });
    expect(gated.detail).toEqual({ kind: 'time_window', windows: [{ from: `${from}:00`, to: `${to}:00` }], zone, local_time: local });
    expect(gated.reason).toContain(`window ${from}–${to} ${zone}; it was ${local.slice(0, 5)} there`);
    expect(gated.reason).toContain('outside the daily time window');
  });

  it('a rate limit gate: the limit, the earlier firing (when, which place) and when a firing is allowed again', async ({ expect }) => {
    const w = await suite.world();
    const user = await w.user();
    const layer = await w.layer({ name: 'Deals', trigger_rate_limit: 3600 });
    const place = await w.place(PLACE, { layer_id: layer, name: 'Bakery' });
    await w.trigger({ layer_id: layer, type: 'message', text: 'deal' });
    await w.subscribe(layer, user.user_id);
    const t0 = start();
    await w.send(user, [...visit(t0), ...visit(t0 + 60_000)]);
    const entries = (await timeline(w, { user_id: user.user_id })).filter((e) => e.event === 'enter');
    expect(entries.map((e) => e.kind)).toEqual(['fired', 'gated']);
    const [fired, gated] = entries;
    const firstAt = seconds(t0 + 10_000);
    expect(gated.detail).toMatchObject({
      kind: 'rate_limit',
      limit_s: 3600,
      last_fired: { date_ts: firstAt, place_id: place, place_name: 'Bakery', firing_id: fired.firing_id },
      allowed_again: { date_ts: firstAt + 3600 },
    });
    expect(gated.detail.allowed_again.date).toBe(new Date((firstAt + 3600) * 1000).toISOString().replace('.000Z', '+00:00'));
    expect(gated.reason).toContain('"Bakery"');
    expect(gated.reason).toContain('trigger_rate_limit is 3600 s');
    expect(gated).toMatchObject({ place_name: 'Bakery', layer_name: 'Deals', layer_id: layer });
  });

  it('a dwell that did not fire: how long the user stayed against the dwell time', async ({ expect }) => {
    const w = await suite.world();
    const user = await w.user();
    await w.trigger({ type: 'message', text: 'stayed', trigger_after: 30 }, PLACE);
    const t0 = start();
    await w.send(user, visit(t0));
    const left = (await timeline(w, { user_id: user.user_id })).find((e) => e.note === 'dwell_too_short');
    // In at +10 s, out at +20 s: 10 s of the 30 s dwell.
    expect(left.detail).toEqual({
      kind: 'dwell', stayed_s: 10, dwell_s: 30,
      entered: { date: expect.any(String), date_ts: seconds(t0 + 10_000) },
      deadline: { date: expect.any(String), date_ts: seconds(t0 + 40_000) },
    });
    expect(left.reason).toContain('stayed 10 s of 30 s');
  });

  it('a point in the band: the distance a leave needs', async ({ expect }) => {
    const w = await suite.world();
    const user = await w.user();
    await w.trigger({ type: 'message', text: 'hi' }, PLACE);
    const t0 = start();
    // 110 m from the centre of a 100 m circle: in the band (the margin is max(20 m, 10 % of 100 m)).
    await w.send(user, [updatePoint(at(110), t0)]);
    const [band] = await timeline(w, { user_id: user.user_id });
    expect(band).toMatchObject({ kind: 'point', note: 'band' });
    expect(band.detail).toEqual({ kind: 'band', radius_m: 100, margin_m: 20, leave_beyond_m: 120 });
    expect(band.reason).toContain('a leave needs a point more than 120 m from the centre');
  });

  it('entries name their trigger, place and layer beside the ids', async ({ expect }) => {
    const w = await suite.world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'hi', key: 'welcome', place_name: 'Front door' }, PLACE);
    await w.send(user, visit(start()));
    const entries = await timeline(w, { user_id: user.user_id });
    expect(entries).toHaveLength(2);
    for (const e of entries) {
      expect(e).toMatchObject({ trigger_id: t.trigger_id, trigger_key: 'welcome', place_id: t.place_id, place_name: 'Front door', layer_id: w.app.default_layer_id });
      expect(e.layer_name).toEqual(expect.any(String));
      expect(e.trigger_deleted).toBeUndefined();
    }
  });
});
