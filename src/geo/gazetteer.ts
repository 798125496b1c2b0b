// An offline gazetteer over populated places (name, country, first-level division, population,
// point): the place a point is in (reverse) and the place a name like "Portland, OR" means
// (forward). Pure: the records are handed in; columns in typed arrays keep a large set compact.
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

export class Gazetteer {
  readonly size: number;
  private readonly names: string[];
  private readonly population: Uint32Array;
  private readonly lat: Float64Array;
  private readonly lon: Float64Array;
  /** Index into `regions`: each distinct country and admin1 pair once. */
  private readonly region: Uint32Array;
  private readonly regions: Array<{ country: string; admin1: string; regionName: string | null; countryName: string | null }> = [];
  private readonly index: KDBush;
  /** Normalized name → record id, or ids when several places share it. */
  private readonly byName = new Map<string, number | number[]>();

  constructor(records: readonly GazetteerRecord[], names: GazetteerNames) {
    const n = (this.size = records.length);
    this.names = new Array<string>(n);
    this.population = new Uint32Array(n);
    this.lat = new Float64Array(n);
    this.lon = new Float64Array(n);
    this.region = new Uint32Array(n);
    this.index = new KDBush(Math.max(1, n));
    const regionIds = new Map<string, number>();
    records.forEach((r, i) => {
      this.names[i] = r.name;
      this.population[i] = r.population;
      this.lat[i] = r.latitude;
      this.lon[i] = r.longitude;
      const regionKey = `${r.country}.${r.admin1}`;
      let regionId = regionIds.get(regionKey);
      if (regionId === undefined) {
        regionId = this.regions.length;
        regionIds.set(regionKey, regionId);
        this.regions.push({ country: r.country, admin1: r.admin1, regionName: names.admin1.get(regionKey) ?? null, countryName: names.country(r.country) ?? null });
      }
      this.region[i] = regionId;
      this.index.add(r.longitude, r.latitude);
      const key = normalizeName(r.name);
      const had = this.byName.get(key);
      if (had === undefined) this.byName.set(key, i);
      else if (typeof had === 'number') this.byName.set(key, [had, i]);
      else had.push(i);
    });
    if (n === 0) this.index.add(0, 0);
    this.index.finish();
  }

  place(i: number): GazetteerPlace {
    const region = this.regions[this.region[i]];
    return {
      name: this.names[i], country: region.country, admin1: region.admin1, regionName: region.regionName, countryName: region.countryName,
      population: this.population[i], latitude: this.lat[i], longitude: this.lon[i],
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
      const score = this.distanceM(i, latitude, longitude) / cityRadiusM(this.population[i]);
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

  private ids(key: string): readonly number[] {
    const hit = this.byName.get(key);
    return hit === undefined ? [] : typeof hit === 'number' ? [hit] : hit;
  }

  private mostPopulous(ids: readonly number[], qualifiers: readonly string[]): number | undefined {
    let best: number | undefined;
    for (const i of ids) {
      if (!qualifiers.every((q) => this.qualifies(i, q))) continue;
      if (best === undefined || this.population[i] > this.population[best]) best = i;
    }
    return best;
  }

  private qualifies(i: number, q: string): boolean {
    const r = this.regions[this.region[i]];
    return q === r.country.toLowerCase() || COUNTRY_ALIASES[q] === r.country || (r.countryName !== null && q === normalizeName(r.countryName))
      || q === r.admin1.toLowerCase() || (r.regionName !== null && q === normalizeName(r.regionName));
  }

  private distanceM(i: number, latitude: number, longitude: number): number {
    return haversineM(latitude, longitude, this.lat[i], this.lon[i]);
  }
}
