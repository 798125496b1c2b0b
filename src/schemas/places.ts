// Place request schemas (reference §4.4). latitude/longitude are optional in the schema so the
// service can say what is missing in the reference's words, or find the point from `geocode`.
import { Type } from '@sinclair/typebox';
import { MAX_CORRIDOR_WIDTH_M, MAX_GEOMETRY_POSITIONS, SHAPE_MAX_LATITUDE } from '../geo/geometry.js';
import { Extra, Id, Key, Latitude, Longitude, PagingQuery, Radius, ShortText, TokenFields } from './common.js';
import { QuerySwitch, StringEnum, WindowFields } from './geo-fields.js';

/** Degrees of longitude a map view spans; the radius is derived from it. */
export const SpanLongitude = Type.Number({ exclusiveMinimum: 0, maximum: 360 });

/**
 * A place's shape instead of its circle (docs/api.md "Shapes"). Checked by the service, which says
 * what is wrong with a refused one; the schema only takes its JSON kinds.
 */
export const GeometryField = Type.Unsafe<unknown>({
  // null first: ajv coerces types, and would read a null as "" for the string branch.
  anyOf: [{ type: 'null' }, { type: 'object' }, { type: 'string' }],
  description:
    'a GeoJSON (RFC 7946) Polygon or MultiPolygon (holes allowed), or a LineString with `width` (a corridor), ' +
    `as an object or, in a form body, its JSON text; at most ${MAX_GEOMETRY_POSITIONS} positions, within ${SHAPE_MAX_LATITUDE}° of the equator, ` +
    'no edge across longitude 180 (split such a shape there). Not with latitude, longitude or radius, which a shaped place derives from it. ' +
    'place/update: null makes the place a circle again',
  examples: [
    { type: 'Polygon', coordinates: [[[-122.68, 45.52], [-122.67, 45.52], [-122.67, 45.53], [-122.68, 45.53], [-122.68, 45.52]]] },
    { type: 'LineString', coordinates: [[-122.68, 45.52], [-122.6, 45.55]] },
  ],
});
/** Metres: a corridor's full width (the line ± half of it). */
export const WidthField = Type.Number({ exclusiveMinimum: 0, maximum: MAX_CORRIDOR_WIDTH_M, description: `a corridor's width in metres (0 < width ≤ ${MAX_CORRIDOR_WIDTH_M}), with a LineString geometry` });

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
  geometry: Type.Optional(GeometryField),
  width: Type.Optional(WidthField),
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
