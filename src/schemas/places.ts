// Place request schemas (reference §4.4). latitude/longitude are optional in the schema so the
// service can say what is missing in the reference's words, or find the point from `geocode`.
import { Type } from '@sinclair/typebox';
import { Extra, Id, Key, Latitude, Longitude, PagingQuery, Radius, ShortText, TokenFields } from './common.js';
import { QuerySwitch, StringEnum, WindowFields } from './geo-fields.js';

/** Degrees of longitude a map view spans; the radius is derived from it. */
export const SpanLongitude = Type.Number({ exclusiveMinimum: 0, maximum: 360 });

export const PlaceBody = Type.Object({
  ...TokenFields,
  layer_id: Type.Optional(Id),
  key: Type.Optional(Key),
  name: Type.Optional(ShortText(200)),
  description: Type.Optional(ShortText(2000)),
  latitude: Type.Optional(Latitude),
  longitude: Type.Optional(Longitude),
  radius: Type.Optional(Radius),
  span_longitude: Type.Optional(SpanLongitude),
  geocode: Type.Optional(Type.String({
    maxLength: 500,
    description: 'instead of latitude/longitude (place/create only): a town, "Portland, OR" or "Paris, FR", found in bundled GeoNames data; radius then defaults from its population (docs/api.md, Geocoding)',
  })),
  extra: Type.Optional(Extra),
  ...WindowFields,
});

export const PlaceByKeyQuery = Type.Object({ ...TokenFields, key: Key, layer_id: Type.Optional(Id) });

export const PlaceListQuery = Type.Object({
  ...TokenFields,
  ...PagingQuery,
  layer_id: Type.Optional(Id),
  include_unnamed: QuerySwitch,
  sort: Type.Optional(StringEnum(['visits', 'name', 'recent'])),
});

export const PlaceNearbyQuery = Type.Object({
  ...TokenFields,
  ...PagingQuery,
  layer_id: Type.Optional(Id),
  /** Both or neither: a user token without them asks about the user's last location (reference §place/nearby). */
  latitude: Type.Optional(Latitude),
  longitude: Type.Optional(Longitude),
  /** Metres beyond a place's edge; `radius` is the JS SDK's name for it. */
  distance: Type.Optional(Type.Number({ minimum: 0, maximum: 20_000_000 })),
  radius: Type.Optional(Type.Number({ minimum: 0, maximum: 20_000_000 })),
  geocode: Type.Optional(ShortText(500)),
});
