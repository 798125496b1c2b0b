// Layer request schemas (reference §4.5). Bodies stay open to unknown fields (is_app, group_token
// and other historical parameters are accepted and ignored).
import { Type } from '@sinclair/typebox';
import { Extra, Flag, Id, Key, Latitude, Longitude, Radius, ShortText, TokenFields, Url } from './common.js';
import { QuerySwitch } from './geo-fields.js';

const LayerFields = {
  ...TokenFields,
  key: Type.Optional(Key),
  description: Type.Optional(ShortText(2000)),
  icon: Type.Optional(Url),
  url: Type.Optional(Url),
  public: Type.Optional(Flag),
  public_userlist: Type.Optional(Flag),
  trigger_rate_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 * 365 })),
  latitude: Type.Optional(Latitude),
  longitude: Type.Optional(Longitude),
  radius: Type.Optional(Radius),
  extra: Type.Optional(Extra),
};

const Name = Type.String({ minLength: 1, maxLength: 200 });

export const LayerCreateBody = Type.Object({ ...LayerFields, name: Name });
export const LayerUpdateBody = Type.Object({ ...LayerFields, name: Type.Optional(Name) });

export const LayerInfoQuery = Type.Object({
  ...TokenFields,
  include_places: QuerySwitch,
  include_valid_places: QuerySwitch,
  count_places: QuerySwitch,
  count_valid_places: QuerySwitch,
});
export const LayerByKeyQuery = Type.Object({ ...LayerInfoQuery.properties, key: Key });

/** `user_id` may come in the query string of a POST (reference §4.5 example) or in the body. */
export const SubjectFields = Type.Object({ ...TokenFields, user_id: Type.Optional(Id) });
