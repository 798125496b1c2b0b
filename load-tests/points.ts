// The points the phones send. A point is a pure function of (seed, user, index, device time, plan):
// the load generator makes it to send it, and the oracle makes it again from the recorded times,
// so millions of points need not be kept in memory. GPS noise is realistic: mostly 5–30 m of
// accuracy, a few poor fixes of 200 m and more, extra scatter while loitering at a boundary.
import { haversineM, metresPerDegree, offset } from './geo.js';
import { Rng } from './rng.js';
import { positionAt, legAt, type Plan } from './tracks.js';
import { shapeEdgeM } from './shapes.js';
import { leaveMargin, round7, type World, type ZoneParams } from './world.js';

export interface SimPoint {
  /** Device time, epoch ms. */
  t: number;
  lat: number;
  lng: number;
  /** Horizontal accuracy, metres. */
  acc: number;
  /** km/h, as the reference defines it. */
  speed: number;
  heading: number;
  altitude: number;
  vacc: number;
  /** 0: raw object and client; 1: raw null; 2: no client (the lenient forms of reference §6.11). */
  shape: 0 | 1 | 2;
}

export interface PointContext {
  seed: number;
  world: World;
  plans: Plan[];
  zones: ZoneParams;
  /** Epoch ms of the start of the load phase (plan time 0). */
  runStart: number;
}

export const POOR_FIX_SHARE = 0.03;
const round1 = (x: number) => Math.round(x * 10) / 10;
/** How far the flat distance may be from the haversine one within a clearOfEdges scan (generous). */
const FLAT_SLACK_M = 5;

/** A phone's fix at device time `t` for its `k`-th point. */
export function makePoint(ctx: PointContext, user: number, k: number, t: number): SimPoint {
  const rng = new Rng(ctx.seed, 'pt', user, k);
  const plan = ctx.plans[user];
  const rel = t - ctx.runStart;
  const leg = legAt(plan, rel);
  const truth = positionAt(plan, rel);
  const poor = rng.chance(POOR_FIX_SHARE);
  let acc = poor ? rng.range(200, 600) : 5 + 25 * rng.next() ** 2;
  // Horizontal accuracy is roughly the 68% radius: sigma per axis about acc / 1.5.
  let sigma = acc / 1.5;
  if (leg.loiterSigmaM && rel >= leg.t0 && rel < leg.t1 && !poor) {
    sigma = leg.loiterSigmaM;
    acc = rng.range(8, 25);
  }
  const p = offset(truth, rng.gaussian() * sigma, rng.gaussian() * sigma);
  const moving = leg.from.lat !== leg.to.lat || leg.from.lng !== leg.to.lng;
  const point: SimPoint = {
    t,
    lat: round7(p.lat),
    lng: round7(p.lng),
    acc: round1(acc),
    speed: round1(moving ? plan.speed * 3.6 * rng.range(0.85, 1.15) : rng.range(0, 1.5)),
    heading: Math.floor(rng.range(0, 360)),
    altitude: Math.round(rng.range(20, 80)),
    vacc: Math.round(rng.range(3, 20)),
    shape: rng.chance(0.9) ? 0 : rng.chance(0.5) ? 1 : 2,
  };
  return clearOfEdges(ctx.world, ctx.zones, point);
}

/**
 * A stale point: older than what the phone already sent, and placed in the middle of a random
 * place so that a server applying it would produce an event the oracle does not expect.
 */
export function makeStalePoint(ctx: PointContext, user: number, k: number, t: number): SimPoint {
  const rng = new Rng(ctx.seed, 'stale', user, k);
  const place = ctx.world.places[rng.int(0, ctx.world.places.length - 1)];
  return {
    t, lat: place.lat, lng: place.lng, acc: 6, speed: 0, heading: 0, altitude: 30, vacc: 5, shape: 0,
  };
}

/**
 * Keeps points off the exact edges (radius, radius + margin, and the usable accuracy limit): the
 * service and the oracle compute the same distances, but differently rounded formulas may disagree
 * in the last bits; 5 cm away from every edge they cannot.
 */
function clearOfEdges(world: World, zones: ZoneParams, point: SimPoint): SimPoint {
  const reach = world.maxRadius + leaveMargin(world.maxRadius, zones) + 1;
  const origin = { lat: point.lat, lng: point.lng };
  for (let attempt = 1; attempt <= 32; attempt++) {
    let clash = false;
    // A flat distance first: within `reach` (a few hundred metres) it is off the sphere's by well
    // under a metre, so a centre it puts metres away from both edges needs no haversine (which was
    // the harness's largest self time under load).
    const per = metresPerDegree(point.lat);
    world.index.scan(point.lat, point.lng, reach, (i, lat, lng, radius) => {
      const shape = world.places[i]!.shape;
      if (shape) {
        // The oracle's turf and the service's frame agree to a centimetre on these short edges.
        if (point.acc === zones.maxAccuracyMinM) point.acc = round1(point.acc + 0.1);
        const flatE = (lng - point.lng) * per.lng;
        const flatN = (lat - point.lat) * per.lat;
        if (Math.sqrt(flatE * flatE + flatN * flatN) > shape.reach + zones.leaveMarginMinM + 1) return;
        const e = shapeEdgeM(shape, point.lat, point.lng);
        if (Math.abs(e) < 0.1 || Math.abs(e - zones.leaveMarginMinM) < 0.1) clash = true;
        return;
      }
      const m = leaveMargin(radius, zones);
      if (point.acc === Math.max(zones.maxAccuracyMinM, radius)) point.acc = round1(point.acc + 0.1);
      const east = (lng - point.lng) * per.lng;
      const north = (lat - point.lat) * per.lat;
      const flat = Math.sqrt(east * east + north * north);
      if (Math.abs(flat - radius) > FLAT_SLACK_M && Math.abs(flat - radius - m) > FLAT_SLACK_M) return;
      const d = haversineM(point.lat, point.lng, lat, lng);
      if (Math.abs(d - radius) < 0.05 || Math.abs(d - radius - m) < 0.05) clash = true;
    });
    if (!clash) return point;
    // Step off in a new direction each time (golden angle): a fixed direction can run along an edge.
    const a = attempt * 2.399963;
    const moved = offset(origin, 0.3 * attempt * Math.cos(a), 0.3 * attempt * Math.sin(a));
    point.lat = round7(moved.lat);
    point.lng = round7(moved.lng);
  }
  return point;
}

// toISOString per point shows in profiles; the part up to the second repeats within a batch.
let isoSecond = NaN;
let isoPrefix = '';
function iso(t: number): string {
  const second = Math.floor(t / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 19);
  }
  return `${isoPrefix}.${String(1000 + t - second * 1000).slice(1)}Z`;
}

/**
 * `x`, a value already rounded to `digits` decimals (round7, round1), as fixed-point text built from
 * integers. V8 writes a fractional double by its shortest-text search, an integer far faster; the
 * two coordinates and two decimals of every point were the harness's largest self time. The text
 * parses to `x` exactly: it is the decimal x was rounded to, and x is that decimal's nearest double.
 */
function fixedText(x: number, scale: number): string {
  const n = Math.round(Math.abs(x) * scale);
  const whole = Math.floor(n / scale);
  return `${x < 0 || Object.is(x, -0) ? '-' : ''}${whole}.${String(scale + n - whole * scale).slice(1)}`;
}

const RAW_TEXT = Array.from({ length: 50 }, (_, i) => `{"battery":${50 + i},"distance_filter":5}`);
const CLIENT_TEXT = ',"client":{"name":"geotrigger-load","version":"1.0","platform":"sim","hardware":"node"}';

/** One point in the location/update format (reference §6.11), as JSON text. */
export function pointJson(p: SimPoint, seqForRaw: number): string {
  const position =
    `{"latitude":${fixedText(p.lat, 1e7)},"longitude":${fixedText(p.lng, 1e7)},"speed":${fixedText(p.speed, 10)},"altitude":${p.altitude},` +
    `"horizontal_accuracy":${fixedText(p.acc, 10)},"vertical_accuracy":${p.vacc},"heading":${p.heading}}`;
  const raw = p.shape === 1 ? 'null' : RAW_TEXT[seqForRaw % 50];
  const client = p.shape === 2 ? '' : CLIENT_TEXT;
  return `{"date":"${iso(p.t)}","location":{"type":"point","position":${position}},"raw":${raw}${client}}`;
}

export function batchJson(points: SimPoint[], seq: number): string {
  let out = '[';
  for (let i = 0; i < points.length; i++) out += (i ? ',' : '') + pointJson(points[i], seq + i);
  return `${out}]`;
}
