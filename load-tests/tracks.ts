// Where each simulated phone is at any moment: a deterministic plan of legs (move from A to B at the
// user's speed, stay somewhere, loiter at a boundary) built from the seed, plus the windows in which
// the phone goes quiet (sends nothing: dwell must still fire by the clock) or is offline (records
// points and uploads them late). Times are milliseconds from the start of the load phase.
import { delta, haversineM, offset, type LatLng } from './geo.js';
import { Rng } from './rng.js';
import {
  dwellPlacesFor, geofencesFor, hasDwell, leaveMargin, type PlaceSpec, type UserSpec, type World, type ZoneParams,
} from './world.js';

export type Mode = 'walk' | 'cycle' | 'drive';

export interface Leg {
  t0: number;
  t1: number;
  from: LatLng;
  to: LatLng;
  /** Loitering at a boundary: extra GPS scatter of this many metres (jitter). */
  loiterSigmaM?: number;
}

export interface TimeWindow {
  from: number;
  to: number;
}

export interface Plan {
  user: number;
  mode: Mode;
  /** Metres per second while moving. */
  speed: number;
  legs: Leg[];
  /** The phone sends nothing in [from, to) (to may be Infinity). */
  quiet?: TimeWindow;
  /** The phone records points in [from, to) and uploads them at `to`. */
  offline: TimeWindow[];
  /** Place indexes visited, in order (for tests and reports). */
  visits: number[];
}

export interface PlanOptions {
  seed: number;
  durationS: number;
  dwellS: number;
  zones: ZoneParams;
}

const SPEEDS: Record<Mode, [number, number]> = { walk: [1.2, 1.6], cycle: [4, 6], drive: [9, 15] };
const MAX_LEGS = 20_000;

/** A point inside `place`, at most `share` of its radius from the centre. */
function inside(rng: Rng, place: PlaceSpec, share: number): LatLng {
  const a = rng.range(0, 2 * Math.PI);
  const d = Math.sqrt(rng.next()) * share * place.radius;
  return offset({ lat: place.lat, lng: place.lng }, d * Math.cos(a), d * Math.sin(a));
}

function towards(from: LatLng, to: LatLng, distanceFromTo: number): LatLng {
  const d = delta(to, from);
  const len = Math.hypot(d.east, d.north) || 1;
  return offset(to, (d.east / len) * distanceFromTo, (d.north / len) * distanceFromTo);
}

export function buildPlan(world: World, user: UserSpec, o: PlanOptions): Plan {
  const rng = new Rng(o.seed, 'plan', user.index);
  const modeRoll = rng.next();
  const mode: Mode = modeRoll < 0.5 ? 'walk' : modeRoll < 0.8 ? 'cycle' : 'drive';
  const speed = rng.range(...SPEEDS[mode]);
  const horizon = (o.durationS + 20) * 1000;
  const dwellMs = o.dwellS * 1000;
  const places = world.places;
  const plan: Plan = { user: user.index, mode, speed, legs: [], offline: [], visits: [] };
  if (places.length === 0) {
    plan.legs.push({ t0: 0, t1: horizon, from: world.origin, to: world.origin });
    return plan;
  }

  const dwellList = user.quiet ? dwellPlacesFor(world, user) : [];
  let target = places[dwellList.length > 0 ? rng.pick(dwellList) : rng.int(0, places.length - 1)];
  let cur: LatLng;
  if (rng.chance(0.12) && !user.quiet) cur = inside(rng, target, 0.5);
  else {
    const a = rng.range(0, 2 * Math.PI);
    // Close enough that every phone, whatever its speed, reaches its first place within seconds.
    const d = target.radius + leaveMargin(target.radius, o.zones) + speed * rng.range(0.5, 6);
    cur = offset({ lat: target.lat, lng: target.lng }, d * Math.cos(a), d * Math.sin(a));
  }

  let t = 0;
  const push = (to: LatLng, durationMs: number, loiterSigmaM?: number) => {
    const leg: Leg = { t0: t, t1: t + Math.max(1, durationMs), from: cur, to, ...(loiterSigmaM ? { loiterSigmaM } : {}) };
    plan.legs.push(leg);
    t = leg.t1;
    cur = to;
    return leg;
  };
  const moveTo = (to: LatLng) => push(to, (haversineM(cur.lat, cur.lng, to.lat, to.lng) / speed) * 1000);
  const recent: number[] = [];

  while (t < horizon && plan.legs.length < MAX_LEGS) {
    plan.visits.push(target.index);
    recent.push(target.index);
    if (recent.length > 4) recent.shift();
    const margin = leaveMargin(target.radius, o.zones);
    const dwellHere = hasDwell(world, target.index) && geofencesFor(world, user, target.index).length > 0;
    if (user.jitter && rng.chance(0.5)) {
      // Loiter in the hysteresis band, GPS scattering the fixes across both boundaries.
      const edge = towards(cur, { lat: target.lat, lng: target.lng }, target.radius + margin / 2);
      moveTo(edge);
      push(edge, rng.range(4000, 10_000), margin * 0.45);
    } else {
      const inner = inside(rng, target, 0.4);
      const move = moveTo(inner);
      if (user.quiet && !plan.quiet && dwellHere) {
        // Quiet shortly after crossing in, before the dwell deadline: only the clock can fire it.
        const crossing = crossingTime(move, target);
        const from = crossing + Math.max(800, rng.range(0.4, 0.8) * dwellMs);
        plan.quiet = { from, to: rng.chance(0.4) ? Infinity : from + rng.range(dwellMs + 3000, dwellMs + 15_000) };
      }
      const stay = dwellHere
        ? rng.chance(0.8) ? dwellMs + rng.range(1500, 5000) : rng.range(0.2, 0.6) * dwellMs
        : rng.range(0, 3000);
      push(inner, stay);
    }
    const next = nextPlace(world, rng, cur, recent);
    if (next) target = next;
    else {
      const a = rng.range(0, 2 * Math.PI);
      moveTo(offset(cur, 400 * Math.cos(a), 400 * Math.sin(a)));
      target = places[rng.int(0, places.length - 1)];
    }
  }
  if (user.late) plan.offline = offlineWindows(world, user, plan, rng, o);
  return plan;
}

/** One of the three nearest places within 1.5 km that were not among the last few visited. */
function nextPlace(world: World, rng: Rng, at: LatLng, recent: number[]): PlaceSpec | undefined {
  const near = world.index
    .near(at.lat, at.lng, 1500)
    .filter((p) => !recent.includes(p.index))
    .map((p) => ({ p, d: haversineM(at.lat, at.lng, p.lat, p.lng) }))
    .filter((x) => x.d <= 1500)
    .sort((a, b) => a.d - b.d || a.p.index - b.p.index)
    .slice(0, 3);
  return near.length > 0 ? rng.pick(near).p : undefined;
}

/** When a move leg crosses into the place's radius (bisection; the leg ends inside). */
function crossingTime(leg: Leg, place: PlaceSpec): number {
  const dist = (t: number) => {
    const p = positionOnLeg(leg, t);
    return haversineM(p.lat, p.lng, place.lat, place.lng);
  };
  if (dist(leg.t0) <= place.radius) return leg.t0;
  let lo = leg.t0;
  let hi = leg.t1;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (dist(mid) <= place.radius) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * Offline windows start at a moment when the phone has not been within reach of a dwell zone for
 * longer than the dwell (plus two seconds for the server to have heard of it): no dwell deadline
 * can be pending at the server while the phone is away, so the outcome of the late upload does not
 * depend on how promptly the server's clock fires. Inside the window the phone may enter anything.
 */
function offlineWindows(world: World, user: UserSpec, plan: Plan, rng: Rng, o: PlanOptions): TimeWindow[] {
  const out: TimeWindow[] = [];
  // The backlog is uploaded before the load phase ends.
  const end = o.durationS * 1000 - 1500;
  const wanted = rng.int(1, 2);
  for (let attempt = 0; attempt < 40 && out.length < wanted; attempt++) {
    const from = rng.range(1500, end - 2500);
    const to = Math.min(end, from + rng.range(3000, 12_000));
    if (from >= end - 2500 || to - from < 2500) continue;
    if (out.some((w) => from < w.to + 3000 && to > w.from - 3000)) continue;
    if (plan.quiet && from < plan.quiet.to && to > plan.quiet.from) continue;
    if (!clearOfDwell(world, user, plan, from - o.dwellS * 1000 - 2000, from)) continue;
    out.push({ from, to });
  }
  return out.sort((a, b) => a.from - b.from);
}

/** The true track stays more than 30 m (GPS noise) outside every dwell place of the user. */
function clearOfDwell(world: World, user: UserSpec, plan: Plan, from: number, to: number): boolean {
  for (let t = Math.max(0, from); t <= to; t += 250) {
    const p = positionAt(plan, t);
    for (const place of world.index.near(p.lat, p.lng, world.maxRadius + 100)) {
      if (!hasDwell(world, place.index) || geofencesFor(world, user, place.index).length === 0) continue;
      if (haversineM(p.lat, p.lng, place.lat, place.lng) <= place.radius + 30) return false;
    }
  }
  return true;
}

function positionOnLeg(leg: Leg, t: number): LatLng {
  const f = leg.t1 === leg.t0 ? 1 : Math.min(1, Math.max(0, (t - leg.t0) / (leg.t1 - leg.t0)));
  return { lat: leg.from.lat + (leg.to.lat - leg.from.lat) * f, lng: leg.from.lng + (leg.to.lng - leg.from.lng) * f };
}

/** The leg in effect at `t` (the last one after the plan ends). */
export function legAt(plan: Plan, t: number): Leg {
  const legs = plan.legs;
  let lo = 0;
  let hi = legs.length - 1;
  if (t >= legs[hi].t1) return legs[hi];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (legs[mid].t1 <= t) lo = mid + 1;
    else hi = mid;
  }
  return legs[lo];
}

export function positionAt(plan: Plan, t: number): LatLng {
  return positionOnLeg(legAt(plan, t), t);
}

export function isQuiet(plan: Plan, t: number): boolean {
  return plan.quiet !== undefined && t >= plan.quiet.from && t < plan.quiet.to;
}

export function offlineAt(plan: Plan, t: number): TimeWindow | undefined {
  return plan.offline.find((w) => t >= w.from && t < w.to);
}
