// Trigger request schemas (reference §4.1): the seed's fields, the reference's, and the inline
// place fields. Which combinations make sense is the service's call, with clear errors.
import { Type } from '@sinclair/typebox';
import { Extra, Flag, Id, Key, Latitude, Longitude, Nullable, PagingQuery, Radius, ShortText, TokenFields, Url } from './common.js';
import { StringEnum, WindowFields } from './geo-fields.js';
import { GeometryField, SpanLongitude, WidthField } from './places.js';

export const TriggerBody = Type.Object({
  ...TokenFields,
  key: Type.Optional(Key),
  type: Type.Optional(StringEnum(['message', 'callback'])),
  text: Type.Optional(ShortText(2000)),
  url: Type.Optional(Url),
  callback: Type.Optional(Url),
  trigger_on: Type.Optional(StringEnum(['enter', 'leave', 'exit'])),
  // The reference writes "no dwell" as 0 or "0"; a form's empty field ("") and null mean it too.
  trigger_after: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 86_400 * 365 }))),
  one_time: Type.Optional(Flag),
  extra: Type.Optional(Extra),
  place_id: Type.Optional(Id),
  layer_id: Type.Optional(Id),
  latitude: Type.Optional(Latitude),
  longitude: Type.Optional(Longitude),
  radius: Type.Optional(Radius),
  span_longitude: Type.Optional(SpanLongitude),
  geometry: Type.Optional(GeometryField),
  width: Type.Optional(WidthField),
  geocode: Type.Optional(ShortText(500)),
  place_name: Type.Optional(ShortText(200)),
  place_description: Type.Optional(ShortText(2000)),
  place_extra: Type.Optional(Extra),
  place_layer_id: Type.Optional(Id),
  place_key: Type.Optional(Key),
  ...WindowFields,
});

export const TriggerListQuery = Type.Object({
  ...TokenFields,
  ...PagingQuery,
  place_id: Type.Optional(Id),
  layer_id: Type.Optional(Id),
  on: Type.Optional(StringEnum(['layer', 'places'])),
});
