// location/context (reference §4.3): the named place a point is in, from the offline gazetteer
// (services/geocoder.ts).
import { Type, type Static } from '@sinclair/typebox';
import { ClientFields, Latitude, Longitude, Nullable, TokenFields } from './common.js';

export const LocationContextQuery = Type.Object({ ...TokenFields, ...ClientFields, latitude: Latitude, longitude: Longitude });

const Name = (description: string) => Nullable(Type.String({ description }));

export const LocationContext = Type.Object({
  locality_name: Name('the city, town or village the point is in or next to; null when none is within 30 km'),
  region_name: Name('the first-level division: the state\'s abbreviation in the US ("CA"), its name elsewhere ("Île-de-France")'),
  postal_code: Type.Null({ description: 'always null: the bundled data set has no postal codes' }),
  full_name: Name('"San Francisco, CA" in the US; "Paris, Île-de-France, France" elsewhere'),
  best_name: Name('the most precise name known: the locality, else the region, else the country'),
  country_code: Name('ISO 3166-1 alpha-2'),
  country_name: Name('the country\'s English name'),
}, { additionalProperties: false, description: 'Every field is null for a point no known place is within 200 km of (mid-ocean)' });

export type LocationContext = Static<typeof LocationContext>;
