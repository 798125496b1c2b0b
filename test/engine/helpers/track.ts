// Tracks for end-to-end engine tests: a phone's points in the location/update format (reference
// §6.11), laid out in metres east/north of a centre so a test reads as geometry ("100 m out"),
// with device times the test controls and seeded noise, so a jittery track is the same on every run.
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

export interface LatLng {
  latitude: number;
  longitude: number;
}

/** One location/update point as a phone sends it. */
export interface UpdatePoint {
  date: string;
  location: {
    type: 'point';
    position: {
      latitude: number;
      longitude: number;
      horizontal_accuracy: number;
      vertical_accuracy: number;
      speed: number;
      altitude: number;
    };
  };
  raw: Record<string, unknown>;
  client: { name: string; version: string; platform: string; hardware: string };
}

/** The sphere the engine measures on (machines/README.md "Zones"). */
const EARTH_RADIUS_M = 6_371_008.8;
const M_PER_DEG_LAT = (EARTH_RADIUS_M * Math.PI) / 180;

/** The point `east` and `north` metres from `centre` (exact enough below a few kilometres). */
export function offset(centre: LatLng, east: number, north: number): LatLng {
  const latitude = centre.latitude + north / M_PER_DEG_LAT;
  const longitude = centre.longitude + east / (M_PER_DEG_LAT * Math.cos((centre.latitude * Math.PI) / 180));
  return { latitude: round7(latitude), longitude: round7(longitude) };
}

/** Haversine distance in metres: lets a test check its own geometry before trusting a result. */
export function distanceM(a: LatLng, b: LatLng): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(h));
}

const round7 = (v: number) => Math.round(v * 1e7) / 1e7;

/** Whole seconds: event ids, date_ts and windows are compared at second resolution. */
export const wholeSecond = (ms: number) => Math.floor(ms / 1000) * 1000;

export interface PointOptions {
  /** Horizontal accuracy, metres (default: the track's). */
  accuracy?: number;
}

export interface WalkOptions extends PointOptions {
  /** Metres per second. */
  speed: number;
  /** Seconds between points. */
  every: number;
  /** Each point is moved by up to this many metres in a random direction (GPS noise). */
  jitter?: number;
}

export interface HoverOptions extends PointOptions {
  /** Distance from the centre the phone hovers at, metres. */
  distance: number;
  /** The distance varies by up to ± this many metres. */
  spread: number;
  count: number;
  /** Seconds between points. */
  every: number;
}

/**
 * A phone moving around `centre`. Every call appends points and advances the device clock;
 * `points()` is what the phone posts (or `take()` for what was added since the last take).
 */
export class Track {
  private readonly list: Array<{ at: number; east: number; north: number; accuracy: number }> = [];
  private taken = 0;
  private east = 0;
  private north = 0;
  private clock: number;
  private readonly rng: RandomGenerator;

  constructor(
    readonly centre: LatLng,
    /** Device time of the first point, epoch ms. */
    start: number,
    private readonly options: { accuracy?: number; seed?: number } = {},
  ) {
    this.clock = start;
    this.rng = xoroshiro128plus(options.seed ?? 42);
  }

  /** Device time of the last point (or the start, before any). */
  get lastAt(): number {
    return this.list.length ? this.list[this.list.length - 1]!.at : this.clock;
  }

  /** One point at (east, north), `after` seconds after the previous one (0 for the very first). */
  at(east: number, north: number, after = this.list.length ? 1 : 0, opts: PointOptions = {}): this {
    this.clock += after * 1000;
    this.east = east;
    this.north = north;
    this.list.push({ at: this.clock, east, north, accuracy: opts.accuracy ?? this.options.accuracy ?? 10 });
    return this;
  }

  /** Advance the device clock without a point (the phone is silent). */
  wait(seconds: number): this {
    this.clock += seconds * 1000;
    return this;
  }

  /** Walk in a straight line from the current position to (east, north), a point every `every` s. */
  walkTo(east: number, north: number, o: WalkOptions): this {
    const dx = east - this.east;
    const dy = north - this.north;
    const length = Math.hypot(dx, dy);
    const step = o.speed * o.every;
    const n = Math.max(1, Math.ceil(length / step));
    const [e0, n0] = [this.east, this.north];
    for (let i = 1; i <= n; i++) {
      const f = Math.min(1, (i * step) / length);
      let pe = e0 + dx * f;
      let pn = n0 + dy * f;
      if (o.jitter) {
        const r = o.jitter * this.next();
        const a = 2 * Math.PI * this.next();
        pe += r * Math.cos(a);
        pn += r * Math.sin(a);
      }
      this.at(pe, pn, this.list.length ? o.every : 0, o);
    }
    this.east = east;
    this.north = north;
    return this;
  }

  /** Points around the centre at `distance ± spread` metres, in random directions. */
  hover(o: HoverOptions): this {
    for (let i = 0; i < o.count; i++) {
      const d = o.distance + o.spread * (2 * this.next() - 1);
      const a = 2 * Math.PI * this.next();
      this.at(d * Math.cos(a), d * Math.sin(a), this.list.length ? o.every : 0, o);
    }
    return this;
  }

  /** Every point so far, as the phone would post them. */
  points(): UpdatePoint[] {
    return this.list.map((p) => this.toUpdate(p));
  }

  /** The points added since the previous take (a phone syncing in several requests). */
  take(): UpdatePoint[] {
    const out = this.list.slice(this.taken).map((p) => this.toUpdate(p));
    this.taken = this.list.length;
    return out;
  }

  /** Every point so far with its place and time, to work out which point should move a machine. */
  positions(): Array<LatLng & { at: number; accuracy: number; distance: number }> {
    return this.list.map((p) => {
      const where = offset(this.centre, p.east, p.north);
      return { ...where, at: p.at, accuracy: p.accuracy, distance: distanceM(this.centre, where) };
    });
  }

  private next(): number {
    return uniformFloat64(this.rng);
  }

  private toUpdate(p: { at: number; east: number; north: number; accuracy: number }): UpdatePoint {
    return updatePoint(offset(this.centre, p.east, p.north), p.at, p.accuracy);
  }
}

/** A single point in the location/update format. */
export function updatePoint(where: LatLng, at: number, accuracy = 10): UpdatePoint {
  return {
    date: new Date(at).toISOString(),
    location: {
      type: 'point',
      position: { ...where, horizontal_accuracy: accuracy, vertical_accuracy: 0, speed: 5, altitude: 0 },
    },
    raw: { battery: 80 },
    client: { name: 'engine-e2e', version: '1', platform: 'vitest', hardware: 'none' },
  };
}

/** Points read already, as the location/update body a phone sends for them (what the engine's intake takes). */
export function bodyOf(points: ReadonlyArray<{ at: number; latitude: number; longitude: number; accuracy: number }>): { text: string } {
  return { text: JSON.stringify(points.map((p) => updatePoint({ latitude: p.latitude, longitude: p.longitude }, p.at, p.accuracy))) };
}
