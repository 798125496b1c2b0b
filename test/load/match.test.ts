// Comparing what must fire with what arrived: matched, missed, duplicated (a second event_id for one
// firing), retries (the same event_id again), unexpected, wrong payloads, and pairs not judged.
import { describe, expect, it } from 'vitest';
import { matchEvents, resolve } from '../../load-tests/match.js';
import type { Ambiguity, ExpectedEvent } from '../../load-tests/oracle/simulate.js';
import { mergeDeliveries, parseCallback, type ReceivedEvent } from '../../load-tests/received.js';
import { assembleWorld, defaultLayers, type PlaceSpec, type TriggerSpec, type UserSpec } from '../../load-tests/world.js';

const T = Date.UTC(2024, 0, 1, 10, 0, 0, 250);

function world() {
  const places: PlaceSpec[] = [0, 1].map((i) => ({ index: i, kind: 'enter', key: `p${i}`, name: `p${i}`, lat: 45 + i / 100, lng: -122, radius: 100, layer: 'default', id: `P${i}` }));
  const triggers: TriggerSpec[] = [
    { index: 0, label: 'enter', key: 't0', type: 'callback', on: 'enter', afterS: 0, oneTime: false, place: 0, path: '/cb/t0', id: 'T0' },
    { index: 1, label: 'leave', key: 't1', type: 'callback', on: 'leave', afterS: 0, oneTime: false, place: 1, path: '/cb/t1', id: 'T1' },
    { index: 2, label: 'message', key: 't2', type: 'message', on: 'enter', afterS: 0, oneTime: false, place: 1, id: 'T2' },
  ];
  const users: UserSpec[] = [0, 1].map((i) => ({ index: i, key: `u${i}`, timezone: 'UTC', layers: ['default'], quiet: false, late: false, jitter: false, id: `U${i}` }));
  const layers = defaultLayers('m', 0);
  layers.default.id = 'L0';
  const o = { seed: 1, users: 2, geofences: 3, dwellS: 3, rateLimitS: 0, durationS: 10, quietShare: 0, lateShare: 0, jitterShare: 0, spacingM: 350, runId: 'm' };
  return assembleWorld(o, layers, places, triggers, users, { lat: 45, lng: -122 });
}

const expected = (user: number, trigger: number, place: number, on: 'enter' | 'leave', t: number, extra: Partial<ExpectedEvent> = {}): ExpectedEvent => ({
  user, trigger, place, geofence: trigger, on, tMin: t, tMax: t, cause: 'point', causeAt: t + 10, lat: 45 + place / 100, lng: -122, delayS: 0, ...extra,
});

/** A callback body as the service sends it (reference §5 plus event_id, date, date_ts, location). */
function callback(id: string, user: string, trigger: string, place: string, on: string, t: number, extra: Record<string, unknown> = {}) {
  return {
    event_id: id, triggered_on: on, triggered_delay: '0', date: new Date(t).toISOString().replace(/\.\d+Z$/, 'Z'), date_ts: Math.floor(t / 1000),
    user: { user_id: user }, trigger: { trigger_id: trigger, type: 'callback', trigger_on: on }, place: { place_id: place, latitude: 45 + Number(place.slice(1)) / 100, longitude: -122, radius: 100 },
    layer: { layer_id: 'L0' }, location: { location: { type: 'point', position: { latitude: 45 + Number(place.slice(1)) / 100, longitude: -122 } } },
    ...extra,
  };
}

const cb = (body: ReturnType<typeof callback>, path: string, arrivalAt: number) => parseCallback(body, body.event_id, path, arrivalAt);

describe('matching', () => {
  it('matches on user, trigger, place and time (second precision), and measures latency from the cause', () => {
    const w = world();
    const r = resolve(w, [cb(callback('e1', 'U0', 'T0', 'P0', 'enter', T), '/cb/t0', T + 40)]);
    const m = matchEvents([expected(0, 0, 0, 'enter', T)], r, [], { toleranceMs: 0 });
    expect(m.matched).toHaveLength(1);
    expect(m.matched[0].latencyMs).toBe(30);
    expect([m.missed, m.duplicates, m.unexpected, m.wrongPayload].map((x) => x.length)).toEqual([0, 0, 0, 0]);
  });

  it('counts a retry of the same event_id once, and a second event_id for the same firing as a duplicate', () => {
    const w = world();
    const deliveries = [
      cb(callback('e1', 'U0', 'T0', 'P0', 'enter', T), '/cb/t0', T + 40),
      cb(callback('e1', 'U0', 'T0', 'P0', 'enter', T), '/cb/t0', T + 900),
      cb(callback('e2', 'U0', 'T0', 'P0', 'enter', T), '/cb/t0', T + 950),
    ];
    const merged = mergeDeliveries(deliveries);
    expect(merged.retries).toBe(1);
    const m = matchEvents([expected(0, 0, 0, 'enter', T)], resolve(w, merged.events), [], { toleranceMs: 100 });
    expect(m.matched).toHaveLength(1);
    expect(m.duplicates.map((d) => d.received.id)).toEqual(['e2']);
  });

  it('pairs two firings within one second by their triggering points', () => {
    const w = world();
    const at = (lat: number) => ({ location: { location: { position: { latitude: lat, longitude: -122 } } } });
    const r = resolve(w, [
      cb(callback('late', 'U0', 'T0', 'P0', 'enter', T + 6, at(45.0002)), '/cb/t0', T + 50),
      cb(callback('early', 'U0', 'T0', 'P0', 'enter', T, at(45.0001)), '/cb/t0', T + 40),
    ]);
    const m = matchEvents([expected(0, 0, 0, 'enter', T, { lat: 45.0001 }), expected(0, 0, 0, 'enter', T + 6, { lat: 45.0002 })], r, [], { toleranceMs: 0 });
    expect(m.matched.map((x) => [x.received.id, x.expected.tMin - T])).toEqual(expect.arrayContaining([['early', 0], ['late', 6]]));
    expect(m.wrongPayload).toHaveLength(0);
  });

  it('lists missed and unexpected events, a firing at another time being both', () => {
    const w = world();
    const r = resolve(w, [cb(callback('e1', 'U1', 'T0', 'P0', 'enter', T + 5000), '/cb/t0', T + 5040)]);
    const m = matchEvents([expected(1, 0, 0, 'enter', T), expected(0, 1, 1, 'leave', T)], r, [], { toleranceMs: 500 });
    expect(m.missed).toHaveLength(2);
    expect(m.unexpected.map((x) => x.id)).toEqual(['e1']);
  });

  it('flags wrong payloads: another trigger’s url, wrong triggered_on, a place not of the trigger, the wrong point', () => {
    const w = world();
    const bodies = [
      [callback('a', 'U0', 'T0', 'P0', 'enter', T), '/cb/t1'],
      [callback('b', 'U0', 'T1', 'P1', 'enter', T), '/cb/t1'],
      [callback('c', 'U0', 'T0', 'P1', 'enter', T), '/cb/t0'],
      [callback('d', 'U1', 'T0', 'P0', 'enter', T, { location: { location: { position: { latitude: 1, longitude: 2 } } } }), '/cb/t0'],
      [{ ...callback('e', 'U1', 'T0', 'P0', 'enter', T), event_id: undefined }, '/cb/t0'],
    ] as const;
    const r = resolve(w, bodies.map(([b, path]) => parseCallback(b, 'e', path, T + 10)));
    const m = matchEvents([expected(1, 0, 0, 'enter', T)], r, [], { toleranceMs: 100 });
    const problems = Object.fromEntries(m.wrongPayload.map((x) => [x.id, x.problems.join('; ')]));
    expect(problems.a).toMatch(/POSTed to \/cb\/t1/);
    expect(problems.b).toMatch(/triggered_on enter, expected leave/);
    expect(problems.c).toMatch(/not a place of trigger T0/);
    expect(problems.d).toMatch(/not the triggering point/);
    expect(problems.e).toMatch(/no event_id/);
  });

  it('matches messages by trigger and place, and rejects a callback trigger that sent a message', () => {
    const w = world();
    const msg = (id: string, trigger: string, t: number): ReceivedEvent => ({ source: 'message', id, deliveries: 1, userId: 'U0', triggerId: trigger, placeId: 'P1', t, precisionMs: 1000, problems: [] });
    const r = resolve(w, [msg('m1', 'T2', Math.floor(T / 1000) * 1000), msg('m2', 'T1', T)]);
    const m = matchEvents([expected(0, 2, 1, 'enter', T)], r, [], { toleranceMs: 0 });
    expect(m.matched.map((x) => x.received.id)).toEqual(['m1']);
    expect(m.wrongPayload.map((x) => x.id)).toEqual(['m2']);
    expect(m.unexpected.map((x) => x.id)).toEqual(['m2']);
  });

  it('does not judge ambiguous pairs from their moment on, nor excluded users', () => {
    const w = world();
    const amb: Ambiguity[] = [{ user: 0, trigger: 0, place: 0, from: T + 2000, reason: 'test' }];
    const r = resolve(w, [
      cb(callback('x', 'U0', 'T0', 'P0', 'enter', T + 3000), '/cb/t0', T + 3040),
      cb(callback('y', 'U1', 'T1', 'P1', 'leave', T), '/cb/t1', T + 40),
    ]);
    const m = matchEvents([expected(0, 0, 0, 'enter', T), expected(0, 0, 0, 'enter', T + 5000)], r, amb, { toleranceMs: 100, excludedUsers: new Set([1]) });
    expect(m.missed).toHaveLength(1);
    expect(m.missed[0].tMin).toBe(T);
    expect(m.ambiguousExpected).toBe(1);
    expect(m.ambiguousReceived).toBe(1);
    expect(m.unexpected).toHaveLength(0);
    // The report lists what was not judged, and counts the excluded user's events apart.
    expect(m.notJudged.map((e) => e.tMin)).toEqual([T + 5000]);
    expect(m.notJudgedReceived.map((r) => r.id)).toEqual(['x']);
    expect([m.excludedExpected, m.excludedReceived]).toEqual([0, 1]);
  });

  it('puts every expected and every received event in exactly one count', () => {
    const w = world();
    const amb: Ambiguity[] = [{ user: 0, trigger: 1, place: 1, from: T, reason: 'test' }];
    const r = resolve(w, [
      cb(callback('a', 'U0', 'T0', 'P0', 'enter', T), '/cb/t0', T + 40),
      cb(callback('b', 'U0', 'T0', 'P0', 'enter', T), '/cb/t0', T + 50),
      cb(callback('c', 'U0', 'T0', 'P0', 'enter', T + 60_000), '/cb/t0', T + 60_040),
      cb(callback('d', 'U0', 'T1', 'P1', 'leave', T + 1000), '/cb/t1', T + 1040),
      cb(callback('e', 'U1', 'T0', 'P0', 'enter', T), '/cb/t0', T + 40),
    ]);
    const exp = [expected(0, 0, 0, 'enter', T), expected(0, 0, 0, 'enter', T + 30_000), expected(0, 1, 1, 'leave', T + 1000), expected(1, 0, 0, 'enter', T)];
    const m = matchEvents(exp, r, amb, { toleranceMs: 100, excludedUsers: new Set([1]) });
    expect(m.matched.length + m.missed.length + m.ambiguousExpected + m.excludedExpected).toBe(exp.length);
    expect(m.matched.length + m.duplicates.length + m.unexpected.length + m.ambiguousReceived + m.excludedReceived).toBe(r.length);
    expect([m.matched.length, m.missed.length, m.duplicates.length, m.unexpected.length, m.ambiguousExpected, m.ambiguousReceived, m.excludedExpected, m.excludedReceived])
      .toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  });
});
