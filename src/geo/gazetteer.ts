// An offline gazetteer over populated places (name, country, first-level division, population,
// point): the place a point is in (reverse) and the place a name like "Portland, OR" means
// (forward). Pure: the records are handed in. Its columns (GazetteerData) are typed arrays only, so
// a worker thread can build them and hand them over without a copy.
import { around } from 'geokdbush';
import KDBush from 'kdbush';
import { haversineM } from './distance.js';

export interface GazetteerRecord {
  name: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** GeoNames admin1 code: the postal abbreviation in the US ("CA"), a number in many countries. */
  admin1: string;
  population: number;
  latitude: number;
  longitude: number;
}

export interface GazetteerPlace extends GazetteerRecord {
  /** The admin1 division's name ("California"), when the names handed in have it. */
  regionName: string | null;
  countryName: string | null;
}

export interface GazetteerNames {
  /** `${country}.${admin1}` → the division's name. */
  admin1: ReadonlyMap<string, string>;
  /** ISO country code → its English name. */
  country: (code: string) => string | undefined;
}

/** Where reverse lookups look for the locality, and (failing one) for region and country. */
export const LOCALITY_SEARCH_M = 30_000;
export const REGION_SEARCH_M = 200_000;

/**
 * The radius of a city's circle, estimated from its population: about 10 m per square root of
 * people (an even density of a few thousand per km²), at least 1 km and at most 20 km.
 */
export function cityRadiusM(population: number): number {
  return Math.min(20_000, Math.max(1_000, Math.round(10 * Math.sqrt(Math.max(0, population)))));
}

/** Case, accents, dots and apostrophes do not count; other punctuation separates words. */
export function normalizeName(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[.'’]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Other names people write for a country. */
const COUNTRY_ALIASES: Record<string, string> = { usa: 'US', 'united states of america': 'US', uk: 'GB', 'great britain': 'GB' };

export interface GazetteerRegion {
  country: string;
  admin1: string;
  regionName: string | null;
  countryName: string | null;
}

/**
 * A gazetteer's columns, one entry per place, the places in the order of their normalized names
 * (a name lookup is a binary search). Typed arrays (and a small list of regions): a worker thread
 * builds them and posts them with their buffers transferred (gazetteerBuffers). Names are UTF-8
 * bytes rather than strings, which the receiving thread would have to copy into its heap.
 */
export interface GazetteerData {
  /** The names in UTF-8, one after another; name i ends at byte nameEnds[i]. */
  names: Uint8Array;
  nameEnds: Uint32Array;
  /** The normalized names (normalizeName) in UTF-8, in ascending order; key i ends at byte keyEnds[i]. */
  keys: Uint8Array;
  keyEnds: Uint32Array;
  population: Uint32Array;
  latitude: Float64Array;
  longitude: Float64Array;
  /** Index into `regions`: each distinct country and admin1 pair once. */
  region: Uint32Array;
  regions: GazetteerRegion[];
  /** A KDBush index over (longitude, latitude): its data, for KDBush.from. */
  index: ArrayBuffer;
}

/** Builds the columns from records (the slow part: in a worker thread for the bundled data set). */
export function gazetteerData(records: readonly GazetteerRecord[], names: GazetteerNames): GazetteerData {
  const n = records.length;
  const keyed = records.map((r, i) => ({ key: normalizeName(r.name), i }));
  // Stable: places of one name keep the records' order.
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const nameColumn = new Utf8Column(records.reduce((sum, r) => sum + r.name.length, 0));
  const keys = new Utf8Column(keyed.reduce((sum, k) => sum + k.key.length, 0));
  const nameEnds = new Uint32Array(n);
  const keyEnds = new Uint32Array(n);
  const population = new Uint32Array(n);
  const latitude = new Float64Array(n);
  const longitude = new Float64Array(n);
  const region = new Uint32Array(n);
  const regions: GazetteerRegion[] = [];
  const regionIds = new Map<string, number>();
  const index = new KDBush(Math.max(1, n));
  keyed.forEach(({ key, i: from }, i) => {
    const r = records[from];
    nameEnds[i] = nameColumn.add(r.name);
    keyEnds[i] = keys.add(key);
    population[i] = r.population;
    latitude[i] = r.latitude;
    longitude[i] = r.longitude;
    const regionKey = `${r.country}.${r.admin1}`;
    let regionId = regionIds.get(regionKey);
    if (regionId === undefined) {
      regionId = regions.length;
      regionIds.set(regionKey, regionId);
      regions.push({ country: r.country, admin1: r.admin1, regionName: names.admin1.get(regionKey) ?? null, countryName: names.country(r.country) ?? null });
    }
    region[i] = regionId;
    index.add(r.longitude, r.latitude);
  });
  if (n === 0) index.add(0, 0);
  index.finish();
  return {
    names: nameColumn.bytes(), nameEnds, keys: keys.bytes(), keyEnds,
    population, latitude, longitude, region, regions, index: index.data as ArrayBuffer,
  };
}

/** The buffers to transfer when posting GazetteerData to another thread. */
export function gazetteerBuffers(d: GazetteerData): ArrayBuffer[] {
  return [d.names, d.nameEnds, d.keys, d.keyEnds, d.population, d.latitude, d.longitude, d.region].map((a) => a.buffer as ArrayBuffer).concat(d.index);
}

/** Strings written one after another in UTF-8. */
class Utf8Column {
  private readonly buf: Uint8Array;
  private end = 0;
  private readonly encoder = new TextEncoder();

  /** `units`: the strings' total length in UTF-16 code units (each takes at most 3 bytes). */
  constructor(units: number) {
    this.buf = new Uint8Array(3 * units);
  }

  /** Appends a string; returns where it ends. */
  add(s: string): number {
    this.end += this.encoder.encodeInto(s, this.buf.subarray(this.end)).written;
    return this.end;
  }

  /** The bytes written, in a buffer of their own. */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.end);
  }
}

export class Gazetteer {
  readonly size: number;
  private readonly d: GazetteerData;
  private readonly index: KDBush;
  /** ignoreBOM: a name that begins with U+FEFF keeps it. */
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });

  /** From records (built here), or from columns gazetteerData built (in another thread). */
  constructor(records: readonly GazetteerRecord[], names: GazetteerNames);
  constructor(data: GazetteerData);
  constructor(source: readonly GazetteerRecord[] | GazetteerData, names?: GazetteerNames) {
    this.d = Array.isArray(source) ? gazetteerData(source, names!) : (source as GazetteerData);
    this.size = this.d.population.length;
    this.index = KDBush.from(this.d.index);
  }

  place(i: number): GazetteerPlace {
    const region = this.d.regions[this.d.region[i]];
    return {
      name: this.text(this.d.names, this.d.nameEnds, i),
      country: region.country, admin1: region.admin1, regionName: region.regionName, countryName: region.countryName,
      population: this.d.population[i], latitude: this.d.latitude[i], longitude: this.d.longitude[i],
    };
  }

  /**
   * The place a point is in: of the places within LOCALITY_SEARCH_M, the one whose estimated
   * extent (cityRadiusM) the point is deepest in, so a small town next to the point beats the
   * centre of a large city further off, and a large city beats its suburbs near its centre.
   * `locality: false` when no place is that near: the nearest within REGION_SEARCH_M then gives
   * the region and country only; undefined when there is none (mid-ocean).
   */
  reverse(latitude: number, longitude: number): { place: GazetteerPlace; distanceM: number; locality: boolean } | undefined {
    if (this.size === 0) return undefined;
    const near = around(this.index, longitude, latitude, Infinity, LOCALITY_SEARCH_M / 1000);
    let best = -1;
    let bestScore = Infinity;
    for (const i of near) {
      const score = this.distanceM(i, latitude, longitude) / cityRadiusM(this.d.population[i]);
      if (score < bestScore) [best, bestScore] = [i, score];
    }
    if (best >= 0) return { place: this.place(best), distanceM: this.distanceM(best, latitude, longitude), locality: true };
    const [nearest] = around(this.index, longitude, latitude, 1, REGION_SEARCH_M / 1000);
    if (nearest === undefined) return undefined;
    return { place: this.place(nearest), distanceM: this.distanceM(nearest, latitude, longitude), locality: false };
  }

  /**
   * The place a one-line name means: "Portland", "Portland, OR", "Portland, Oregon, USA",
   * "Paris, FR". The first part is the place's name; each further part must name its country (code
   * or name) or its admin1 division (code or name). The most populous match wins. The whole text
   * is first tried as a name ("Washington, D.C.").
   */
  search(text: string): GazetteerPlace | undefined {
    const whole = this.mostPopulous(this.ids(normalizeName(text)), []);
    if (whole !== undefined) return this.place(whole);
    const [name, ...qualifiers] = text.split(',').map(normalizeName).filter((p) => p !== '');
    if (name === undefined) return undefined;
    const found = this.mostPopulous(this.ids(name), qualifiers);
    return found === undefined ? undefined : this.place(found);
  }

  private text(column: Uint8Array, ends: Uint32Array, i: number): string {
    return this.decoder.decode(column.subarray(i === 0 ? 0 : ends[i - 1], ends[i]));
  }

  private key(i: number): string {
    return this.text(this.d.keys, this.d.keyEnds, i);
  }

  /** The places whose normalized name is `key`: a run of the sorted keys. */
  private ids(key: string): readonly number[] {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.key(mid) < key) lo = mid + 1;
      else hi = mid;
    }
    const ids: number[] = [];
    for (let i = lo; i < this.size && this.key(i) === key; i++) ids.push(i);
    return ids;
  }

  private mostPopulous(ids: readonly number[], qualifiers: readonly string[]): number | undefined {
    let best: number | undefined;
    for (const i of ids) {
      if (!qualifiers.every((q) => this.qualifies(i, q))) continue;
      if (best === undefined || this.d.population[i] > this.d.population[best]) best = i;
    }
    return best;
  }

  private qualifies(i: number, q: string): boolean {
    const r = this.d.regions[this.d.region[i]];
    return q === r.country.toLowerCase() || COUNTRY_ALIASES[q] === r.country || (r.countryName !== null && q === normalizeName(r.countryName))
      || q === r.admin1.toLowerCase() || (r.regionName !== null && q === normalizeName(r.regionName));
  }

  private distanceM(i: number, latitude: number, longitude: number): number {
    return haversineM(latitude, longitude, this.d.latitude[i], this.d.longitude[i]);
  }
}
