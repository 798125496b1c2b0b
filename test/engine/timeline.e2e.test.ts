// The decision timeline end to end (GET /1/trigger/timeline, trigger/state): every transition,
// firing and gated firing with the point behind it, the points worth showing, and a right
// explanation for every outside pair. A real server, real sockets, the public API only.
import { describe, it } from 'vitest';
import { engineSuite } from './helpers/suite.js';
import { offset, Track, updatePoint, wholeSecond } from './helpers/track.js';
import type { World } from './helpers/world.js';
import { seconds } from './helpers/world.js';

const CENTRE = { latitude: 48.8566, longitude: 2.3522 };
const PLACE = { ...CENTRE, radius: 100 };

const suite = engineSuite();
const world = suite.world;
const start = () => wholeSecond(Date.now()) - 600_000;
const at = (east: number, north = 0) => offset(CENTRE, east, north);

type Entry = {
  id: string; kind: string; event: string | null; from: string | null; to: string | null; gate: string | null; note: string | null;
  reason: string; trigger_id: string; place_id: string; firing_id: string | null; date_ts: number; zone: string | null;
  point: { date_ts: number; latitude: number; longitude: number } | null;
};

async function timeline(w: World, userId: string, query: Record<string, unknown> = {}): Promise<Entry[]> {
  const res = await w.api.get('/1/trigger/timeline', { token: w.token, query: { user_id: userId, ...query } });
  if (res.status !== 200) throw new Error(`trigger/timeline: ${res.status} ${JSON.stringify(res.body)}`);
  // Newest first on the wire; oldest first is easier to read here.
  return (res.body.entries as Entry[]).slice().reverse();
}

const brief = (e: Entry) => [e.kind, e.event, e.from, e.to, e.gate ?? e.note];

/** Out, in, out: a visit of the place (10 s per step). */
const visit = (t0: number) => [updatePoint(at(-300), t0), updatePoint(at(0), t0 + 10_000), updatePoint(at(300), t0 + 20_000)];

describe.concurrent('timeline entries', () => {
  it('records each transition and firing with the point behind it; the firing carries its trigger/history event id', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'hi' }, PLACE);
    const t0 = start();
    await w.send(user, visit(t0));
    const entries = await timeline(w, user.user_id);
    expect(entries.map(brief)).toEqual([
      ['fired', 'enter', 'outside', 'inside', null],
      ['transition', 'leave', 'inside', 'outside', null],
    ]);
    const [fired, left] = entries;
    expect(fired).toMatchObject({ trigger_id: t.trigger_id, place_id: t.place_id, zone: 'in', date_ts: seconds(t0 + 10_000), point: { date_ts: seconds(t0 + 10_000), ...at(0) } });
    expect(fired.reason).toMatch(/^Fired on entering/);
    expect(left).toMatchObject({ zone: 'out', point: { date_ts: seconds(t0 + 20_000) } });
    const [history] = await w.firings(user.user_id);
    expect(fired.firing_id).toBe(history!.event_id);
  });

  it('a leave trigger fires on leaving; entering is a plain transition', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    await w.trigger({ type: 'message', text: 'bye', trigger_on: 'leave' }, PLACE);
    await w.send(user, visit(start()));
    expect((await timeline(w, user.user_id)).map(brief)).toEqual([
      ['transition', 'enter', 'outside', 'inside', null],
      ['fired', 'leave', 'inside', 'outside', null],
    ]);
  });

  it('a dwell: entry, then the firing at the deadline (a tick: no point); a visit too short leaves a noted leave', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    await w.trigger({ type: 'message', text: 'stayed', trigger_after: 30 }, PLACE);
    const t0 = start();
    // Too short: in at +10 s, out at +20 s. Then a long visit: in at +100 s, still in at +160 s.
    await w.send(user, [...visit(t0), updatePoint(at(0), t0 + 100_000), updatePoint(at(10), t0 + 160_000)]);
    const entries = await timeline(w, user.user_id);
    expect(entries.map(brief)).toEqual([
      ['transition', 'enter', 'outside', 'inside', null],
      ['transition', 'leave', 'inside', 'outside', 'dwell_too_short'],
      ['transition', 'enter', 'outside', 'inside', null],
      ['fired', 'dwell', 'inside', 'dwelling', null],
    ]);
    expect(entries[1]!.reason).toMatch(/too short/);
    expect(entries[3]).toMatchObject({ date_ts: seconds(t0) + 130, point: null });
  });
});

describe.concurrent('gated firings', () => {
  it('date_window: the place is outside its dates; trigger_inactive: the trigger is', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const now = seconds(Date.now());
    const closedPlace = await w.place(PLACE, { date_to: now - 3600 });
    await w.trigger({ place_id: closedPlace, type: 'message', text: 'closed place' });
    const open = await w.place({ ...at(1000), radius: 100 });
    await w.trigger({ place_id: open, type: 'message', text: 'expired', date_to: now - 3600 });
    const t0 = start();
    await w.send(user, new Track(CENTRE, t0).at(-300, 0).walkTo(1300, 0, { speed: 10, every: 10 }).points());
    const gated = (await timeline(w, user.user_id)).filter((e) => e.kind === 'gated');
    expect(gated.map((e) => [e.place_id, e.event, e.gate])).toEqual([[closedPlace, 'enter', 'date_window'], [open, 'enter', 'trigger_inactive']]);
    expect(gated[0]!.reason).toMatch(/date window/);
    expect(gated[1]!.reason).toMatch(/trigger is not active/);
    expect(await w.firings(user.user_id)).toEqual([]);
  });

  it('time_window: outside the daily window in the user\'s zone', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const t0 = start();
    const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    // A window two to three hours after the walk (UTC: the user has no zone).
    await w.trigger({ type: 'message', text: 'later', time_from: hhmm(t0 + 2 * 3600_000), time_to: hhmm(t0 + 3 * 3600_000) }, PLACE);
    await w.send(user, visit(t0));
    expect((await timeline(w, user.user_id)).map(brief)[0]).toEqual(['gated', 'enter', 'outside', 'inside', 'time_window']);
  });

  it('rate_limit: the same trigger fired less than the layer\'s trigger_rate_limit before', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const layer = await w.layer({ trigger_rate_limit: 3600 });
    const place = await w.place(PLACE, { layer_id: layer });
    await w.trigger({ layer_id: layer, type: 'message', text: 'deal' });
    await w.subscribe(layer, user.user_id);
    const t0 = start();
    await w.send(user, [...visit(t0), ...visit(t0 + 60_000)]);
    const entries = (await timeline(w, user.user_id)).filter((e) => e.event === 'enter');
    expect(entries.map((e) => [e.kind, e.gate, e.place_id])).toEqual([['fired', null, place], ['gated', 'rate_limit', place]]);
  });

  it('one_time_spent: the second entry of a spent one-time pair is a gated entry, not silence', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    await w.trigger({ type: 'message', text: 'once', one_time: 1 }, PLACE);
    const t0 = start();
    await w.send(user, [...visit(t0), ...visit(t0 + 60_000)]);
    expect((await timeline(w, user.user_id)).map(brief)).toEqual([
      ['fired', 'enter', 'outside', 'firedOnce', null],
      ['gated', 'enter', 'firedOnce', 'firedOnce', 'one_time_spent'],
    ]);
    expect(await w.firings(user.user_id)).toHaveLength(1);
  });
});

describe.concurrent('points that changed nothing', () => {
  it('band, unusable accuracy and stale points are noted once per run', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'hi' }, PLACE);
    const t0 = start();
    await w.send(user, [
      updatePoint(at(110), t0), updatePoint(at(112), t0 + 10_000), // band while outside: one entry
      updatePoint(at(0), t0 + 20_000, 900), // at the centre, accuracy 900 m: unusable
      updatePoint(at(0), t0 + 60_000), // in: fires
    ]);
    await w.send(user, [updatePoint(at(5), t0 + 40_000)]); // older than the last applied point
    // In time order: the stale point is dated at its own (device) time.
    const entries = await timeline(w, user.user_id, { trigger_id: t.trigger_id });
    expect(entries.map((e) => [e.kind, e.note ?? e.event])).toEqual([
      ['point', 'band'], ['point', 'unusable_accuracy'], ['point', 'stale_point'], ['fired', 'enter'],
    ]);
    expect(entries[0]!.zone).toBe('band');
    expect(entries[2]!.reason).toMatch(/older than the user's last applied point/);
  });
});

describe.concurrent('GET /1/trigger/timeline', () => {
  it('filters by trigger, place and time, pages newest first, and refuses unknown parameters and other apps\' users', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const a = await w.trigger({ type: 'message', text: 'a' }, PLACE);
    const b = await w.trigger({ type: 'message', text: 'b' }, { ...at(1000), radius: 100 });
    const t0 = start();
    await w.send(user, new Track(CENTRE, t0).at(-300, 0).walkTo(1300, 0, { speed: 10, every: 10 }).points());
    const all = await timeline(w, user.user_id);
    // Walking through, each place: a band point on the way in, the firing, the leave (with a band point before it).
    expect(all.filter((e) => e.kind !== 'point').map((e) => [e.kind, e.place_id])).toEqual([
      ['fired', a.place_id], ['transition', a.place_id], ['fired', b.place_id], ['transition', b.place_id],
    ]);
    expect((await timeline(w, user.user_id, { trigger_id: a.trigger_id })).every((e) => e.trigger_id === a.trigger_id)).toBe(true);
    expect((await timeline(w, user.user_id, { place_id: b.place_id })).filter((e) => e.kind !== 'point').map((e) => e.kind)).toEqual(['fired', 'transition']);
    const firstB = all.find((e) => e.place_id === b.place_id)!;
    expect((await timeline(w, user.user_id, { after: firstB.date_ts - 1 })).every((e) => e.date_ts >= firstB.date_ts)).toBe(true);
    expect((await timeline(w, user.user_id, { before: firstB.date_ts })).every((e) => e.place_id === a.place_id)).toBe(true);

    const page = await w.api.get('/1/trigger/timeline', { token: w.token, query: { user_id: user.user_id, count: 3 } });
    expect(page.body.entries.map((e: Entry) => e.id)).toEqual(all.slice().reverse().slice(0, 3).map((e) => e.id));
    expect(page.body.paging).toMatchObject({ total: all.length, next_offset: 3 });

    const unknown = await w.api.get('/1/trigger/timeline', { token: w.token, query: { user_id: user.user_id, trigger: a.trigger_id } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'invalid_params', error_description: expect.stringContaining('trigger') });
    const other = await world();
    expect((await other.api.get('/1/trigger/timeline', { token: other.token, query: { user_id: user.user_id } })).status).toBe(404);
    expect((await w.api.get('/1/trigger/timeline', { token: w.token, query: {} })).status).toBe(400);
    expect((await w.api.get('/1/trigger/timeline', { token: user.access_token, query: { user_id: user.user_id } })).status).toBe(403);
  });

  it('keeps the entries after the user leaves the place and its layer', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const layer = await w.layer();
    await w.place(PLACE, { layer_id: layer });
    await w.trigger({ layer_id: layer, type: 'message', text: 'x' });
    await w.subscribe(layer, user.user_id);
    await w.send(user, [updatePoint(at(-300), start()), updatePoint(at(0), start() + 10_000)]);
    await w.unsubscribe(layer, user.user_id);
    expect((await timeline(w, user.user_id)).map((e) => e.kind)).toEqual(['fired']);
  });
});

describe.concurrent('trigger/state explanations', () => {
  const machines = async (w: World, triggerId: string, userId: string) => {
    const res = await w.api.get(`/1/trigger/state/${triggerId}`, { token: w.token, query: { user_id: userId } });
    if (res.status !== 200) throw new Error(`trigger/state: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.machines as Array<{ place_id: string; state: string; explanation?: string; explanation_code?: string; timeline: Entry[] }>;
  };

  it('no location yet', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'x' }, PLACE);
    const [m] = await machines(w, t.trigger_id, user.user_id);
    expect(m).toMatchObject({ state: 'outside', explanation_code: 'no_location', explanation: expect.stringMatching(/No location/), timeline: [] });
  });

  it('not subscribed to the layer, even with the last point inside the place', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const layer = await w.layer();
    await w.place(PLACE, { layer_id: layer });
    const t = await w.trigger({ layer_id: layer, type: 'message', text: 'x' });
    await w.send(user, [updatePoint(at(0), start())]);
    const [m] = await machines(w, t.trigger_id, user.user_id);
    expect(m).toMatchObject({ state: 'outside', zone: 'in', explanation_code: 'not_subscribed' } as never);
    expect(m!.explanation).toContain(`not subscribed to layer ${layer}`);
  });

  it('trigger expired, and place outside its date window', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const now = seconds(Date.now());
    const expired = await w.trigger({ type: 'message', text: 'old', date_to: now - 86_400 }, PLACE);
    const closed = await w.place({ ...at(1000), radius: 100 }, { date_from: now + 86_400 });
    const onClosed = await w.trigger({ place_id: closed, type: 'message', text: 'soon' });
    await w.send(user, [updatePoint(at(-500), start())]);
    const [e] = await machines(w, expired.trigger_id, user.user_id);
    expect(e).toMatchObject({ explanation_code: 'trigger_expired', explanation: expect.stringMatching(/^The trigger expired on/) });
    const [c] = await machines(w, onClosed.trigger_id, user.user_id);
    expect(c).toMatchObject({ explanation_code: 'place_date_window', explanation: expect.stringMatching(/outside its date window/) });
  });

  it('zone-based: out, band, poor accuracy; and the pair\'s recent entries', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'x' }, PLACE);
    const t0 = start();
    await w.send(user, visit(t0));
    let [m] = await machines(w, t.trigger_id, user.user_id);
    expect(m).toMatchObject({ explanation_code: 'zone_out', explanation: expect.stringMatching(/200 m outside the place/) });
    expect(m!.timeline.map((e) => e.kind)).toEqual(['transition', 'fired']);
    await w.send(user, [updatePoint(at(110), t0 + 30_000)]);
    [m] = await machines(w, t.trigger_id, user.user_id);
    expect(m).toMatchObject({ explanation_code: 'zone_band' });
    await w.send(user, [updatePoint(at(0), t0 + 40_000, 900)]);
    [m] = await machines(w, t.trigger_id, user.user_id);
    expect(m).toMatchObject({ explanation_code: 'zone_unusable' });
  });

  it('a point inside a place created after it: explained as such, not as a gate', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    await w.send(user, [updatePoint(at(0), start())]);
    const t = await w.trigger({ type: 'message', text: 'x' }, PLACE);
    const [m] = await machines(w, t.trigger_id, user.user_id);
    expect(m).toMatchObject({ explanation_code: 'zone_in', explanation: expect.stringMatching(/came before the trigger existed/) });
  });
});
