// The simulator's world, tracks and points: deterministic from the seed, realistic in the ways the
// issue names (speeds, stops, GPS accuracy, quiet and late phones), and exact in the geofence count.
import { describe, expect, it } from 'vitest';
import { haversineM } from '../../load-tests/geo.js';
import { batchJson, makePoint, POOR_FIX_SHARE, type PointContext } from '../../load-tests/points.js';
import { buildPlan, positionAt } from '../../load-tests/tracks.js';
import { DEFAULT_ZONES, generateWorld, hasDwell, leaveMargin, PLACE_KINDS, type WorldOptions } from '../../load-tests/world.js';

const OPTS: WorldOptions = {
  seed: 7, users: 300, geofences: 800, dwellS: 3, rateLimitS: 8, durationS: 30,
  quietShare: 0.2, lateShare: 0.3, jitterShare: 0.2, spacingM: 350, runId: 'r',
};

function build(o: WorldOptions = OPTS) {
  const world = generateWorld(o);
  const plans = world.users.map((u) => buildPlan(world, u, { seed: o.seed, durationS: o.durationS, dwellS: o.dwellS, zones: DEFAULT_ZONES }));
  const ctx: PointContext = { seed: o.seed, world, plans, zones: DEFAULT_ZONES, runStart: Date.UTC(2024, 0, 1) };
  return { world, plans, ctx };
}

/** Everything that reaches the service or the oracle, as comparable data. */
function fingerprint(b: ReturnType<typeof build>) {
  const { world, plans, ctx } = b;
  return JSON.stringify({
    places: world.places.map((p) => [p.kind, p.lat, p.lng, p.radius, p.layer, p.window]),
    triggers: world.triggers.map((t) => [t.type, t.on, t.afterS, t.oneTime, t.place, t.layer, t.window]),
    users: world.users.map((u) => [u.timezone, u.layers, u.quiet, u.late, u.jitter]),
    plans: plans.map((p) => [p.mode, p.speed, p.legs.length, p.quiet, p.offline, p.visits]),
    points: Array.from({ length: 200 }, (_, i) => batchJson([makePoint(ctx, i % 300, i, ctx.runStart + i * 97)], i)),
  });
}

describe('generator', () => {
  it('builds the same world, tracks and points from the same seed, and others from another', () => {
    const a = fingerprint(build());
    expect(fingerprint(build())).toBe(a);
    expect(fingerprint(build({ ...OPTS, seed: 8 }))).not.toBe(a);
  });

  it('makes exactly the requested number of geofences, with every kind of place present', () => {
    for (const geofences of [40, 800, 5000]) {
      const w = generateWorld({ ...OPTS, geofences });
      expect(w.geofences).toHaveLength(geofences);
      expect(new Set(w.places.map((p) => p.kind))).toEqual(new Set(PLACE_KINDS));
    }
  });

  it('covers every trigger feature: enter, leave, dwell, one-time, message, callback, layer, windows, rate limit, inline', () => {
    const w = generateWorld(OPTS);
    const t = w.triggers;
    expect(t.some((x) => x.on === 'leave')).toBe(true);
    expect(t.some((x) => x.afterS > 0 && x.type === 'callback')).toBe(true);
    expect(t.some((x) => x.afterS > 0 && x.type === 'message')).toBe(true);
    expect(t.some((x) => x.oneTime)).toBe(true);
    expect(t.some((x) => x.inline)).toBe(true);
    expect(t.some((x) => x.window?.dateToMs !== undefined)).toBe(true);
    expect(t.some((x) => x.window?.timeFromS !== undefined)).toBe(true);
    expect(w.places.some((p) => p.window?.timeFromS !== undefined)).toBe(true);
    expect(t.filter((x) => x.layer !== undefined).map((x) => x.layer)).toEqual(expect.arrayContaining(['bulk', 'rate', 'multi']));
    expect(w.layers.rate.rateLimitS).toBe(8);
    // Layer triggers reach every place of their layer, and several users subscribe to each layer.
    const multi = w.triggers.find((x) => x.layer === 'multi')!;
    expect(w.byTrigger[multi.index].length).toBe(w.places.filter((p) => p.layer === 'multi').length);
    expect(w.users.filter((u) => u.layers.includes('multi')).length).toBeGreaterThan(100);
  });

  it('makes a huge geofence count mostly of bulk-layer places when asked to', () => {
    const w = generateWorld({ ...OPTS, geofences: 20_000, fillerShare: 0.9 });
    expect(w.geofences).toHaveLength(20_000);
    const bulk = w.places.filter((p) => p.kind === 'bulk').length;
    expect(bulk / w.places.length).toBeGreaterThan(0.85);
    expect(w.triggers.length).toBeLessThan(2000);
  });

  it('keeps the place density constant: the region grows with the geofence count', () => {
    const small = generateWorld({ ...OPTS, geofences: 1000 });
    const large = generateWorld({ ...OPTS, geofences: 16_000 });
    const density = (w: typeof small) => w.places.length / (w.sideM * w.sideM);
    expect(density(large) / density(small)).toBeGreaterThan(0.8);
    expect(density(large) / density(small)).toBeLessThan(1.25);
  });

  it('moves phones at walking, cycling and driving speeds, with stops inside places', () => {
    const { world, plans } = build();
    const modes = new Set(plans.map((p) => p.mode));
    expect(modes).toEqual(new Set(['walk', 'cycle', 'drive']));
    for (const p of plans) {
      const [lo, hi] = { walk: [1.2, 1.6], cycle: [4, 6], drive: [9, 15] }[p.mode];
      expect(p.speed).toBeGreaterThanOrEqual(lo);
      expect(p.speed).toBeLessThanOrEqual(hi);
      // Legs are contiguous in time and cover the run.
      p.legs.forEach((leg, i) => i > 0 && expect(leg.t0).toBe(p.legs[i - 1].t1));
      expect(p.legs[p.legs.length - 1].t1).toBeGreaterThanOrEqual(30_000);
    }
    // Some stay long enough inside a dwell place to exercise the dwell triggers.
    const dwellStays = plans.flatMap((p) =>
      p.legs.filter((l) => l.from === l.to && !l.loiterSigmaM && l.t1 - l.t0 > 3000 && world.index.near(l.to.lat, l.to.lng, world.maxRadius).some(
        (pl) => hasDwell(world, pl.index) && haversineM(l.to.lat, l.to.lng, pl.lat, pl.lng) < pl.radius,
      )));
    expect(dwellStays.length).toBeGreaterThan(20);
  });

  it('gives GPS fixes a realistic accuracy: mostly 5–30 m, a few poor fixes of 200 m or more', () => {
    const { ctx } = build();
    const acc = Array.from({ length: 20_000 }, (_, i) => makePoint(ctx, i % 300, 10_000 + i, ctx.runStart + 5000 + i).acc);
    const good = acc.filter((a) => a >= 5 && a <= 30).length / acc.length;
    const poor = acc.filter((a) => a >= 200).length / acc.length;
    expect(good).toBeGreaterThan(0.9);
    expect(poor).toBeGreaterThan(POOR_FIX_SHARE / 2);
    expect(poor).toBeLessThan(POOR_FIX_SHARE * 2);
  });

  it('keeps every point at least 5 cm away from a radius or a radius-plus-margin edge', () => {
    const { world, ctx } = build();
    let closest = Infinity;
    for (let i = 0; i < 20_000; i++) {
      const p = makePoint(ctx, i % 300, i, ctx.runStart + i * 7);
      for (const place of world.index.near(p.lat, p.lng, world.maxRadius + 40)) {
        const d = haversineM(p.lat, p.lng, place.lat, place.lng);
        closest = Math.min(closest, Math.abs(d - place.radius), Math.abs(d - place.radius - leaveMargin(place.radius, DEFAULT_ZONES)));
      }
    }
    expect(closest).toBeGreaterThanOrEqual(0.05);
  });

  it('sends quiet phones quiet inside a dwell place, and starts offline windows clear of every dwell zone', () => {
    const { world, plans } = build();
    const quiet = plans.filter((p) => p.quiet);
    expect(quiet.length).toBeGreaterThan(20);
    for (const p of quiet) {
      const at = positionAt(p, p.quiet!.from);
      const inside = world.index.near(at.lat, at.lng, world.maxRadius).some((pl) => hasDwell(world, pl.index) && haversineM(at.lat, at.lng, pl.lat, pl.lng) <= pl.radius);
      expect(inside).toBe(true);
    }
    const offline = plans.filter((p) => p.offline.length > 0);
    // Most phones that may go offline do, even in a 30-second run.
    expect(offline.length).toBeGreaterThan(world.users.filter((u) => u.late).length / 2);
    for (const p of offline) {
      for (const w of p.offline) {
        expect(w.to).toBeGreaterThan(w.from);
        const user = world.users[p.user];
        expect(w.to).toBeLessThanOrEqual(OPTS.durationS * 1000);
        // Not near a dwell place for the dwell plus two seconds before: no deadline can be pending.
        for (let t = Math.max(0, w.from - 5000); t <= w.from; t += 250) {
          const at = positionAt(p, t);
          for (const pl of world.index.near(at.lat, at.lng, world.maxRadius + 60)) {
            if (!hasDwell(world, pl.index) || !user.layers.includes(pl.layer)) continue;
            expect(haversineM(at.lat, at.lng, pl.lat, pl.lng)).toBeGreaterThan(pl.radius + 30);
          }
        }
      }
    }
  });

  it('writes points in the location/update format, including the lenient forms', () => {
    const { ctx } = build();
    const batch = Array.from({ length: 300 }, (_, i) => makePoint(ctx, 3, i, ctx.runStart + i));
    const parsed = JSON.parse(batchJson(batch, 0)) as Array<Record<string, any>>;
    expect(parsed).toHaveLength(300);
    expect(parsed[0]).toMatchObject({ location: { type: 'point', position: { latitude: batch[0].lat, longitude: batch[0].lng, horizontal_accuracy: batch[0].acc } } });
    expect(Date.parse(parsed[5].date)).toBe(ctx.runStart + 5);
    expect(parsed.some((p) => p.raw === null)).toBe(true);
    expect(parsed.some((p) => !('client' in p))).toBe(true);
  });

  it('writes every number of a point so that it reads back as exactly the value the oracle uses', () => {
    const { ctx } = build();
    const made = Array.from({ length: 3000 }, (_, i) => makePoint(ctx, i % 300, i, ctx.runStart + i * 37));
    // Signs, zeros and last digits the generated world (Portland) never makes.
    const odd = [0, -0.0000001, 0.0000001, -45.5, -179.9999999, 89.9999999, -0.5, 12.0000009].map((lat, i) => ({
      ...made[i]!, lat, lng: -lat, speed: [0, 0.1, 9.9, 120.5][i % 4]!, acc: [0.1, 5, 600, 25.3][i % 4]!, t: ctx.runStart + i * 999,
    }));
    const points = [...made, ...odd];
    const parsed = JSON.parse(batchJson(points, 0)) as Array<{ date: string; location: { position: Record<string, number> } }>;
    parsed.forEach((q, i) => {
      const p = points[i]!;
      const pos = q.location.position;
      expect([pos.latitude, pos.longitude, pos.speed, pos.horizontal_accuracy, pos.altitude, pos.vertical_accuracy, pos.heading, Date.parse(q.date)])
        .toEqual([p.lat, p.lng, p.speed, p.acc, p.altitude, p.vacc, p.heading, p.t]);
    });
  });
});
