// User and account request schemas. Bodies stay open to unknown fields: real SDKs send extras
// such as device_id, mac, platform and hardware (reference §4.6).
import { Type } from '@sinclair/typebox';
import { ClientFields, Extra, Flag, Key, ShortText, TokenFields } from './common.js';

/** A login too (user/create, the password grant): no spaces, control characters or lone surrogates (schemas/username.ts). */
const Email = Type.String({
  maxLength: 320,
  pattern: '^[^\\s@\\p{Cc}\\p{Cs}]+@[^\\s@\\p{Cc}\\p{Cs}]+$',
  description: 'an email address, name@domain, without spaces or control characters',
});

export const ProfileFields = {
  name: Type.Optional(ShortText(200)),
  display_name: Type.Optional(ShortText(200)),
  bio: Type.Optional(ShortText(2000)),
  website: Type.Optional(ShortText(2048)),
  phone: Type.Optional(ShortText(64)),
  // Types listed (not a union): ajv then coerces neither null to "" nor "" to null, so the service
  // refuses the value that was sent, quoting it.
  timezone: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 64 })),
  profile_image: Type.Optional(ShortText(2048)),
  email: Type.Optional(Email),
  twitter: Type.Optional(ShortText(200)),
  facebook: Type.Optional(ShortText(200)),
  public_location: Type.Optional(Flag),
  public_geonotes: Type.Optional(Flag),
  public_geonote_email: Type.Optional(Flag),
  extra: Type.Optional(Extra),
};

const LayerIds = Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 }));

export const CreateAnonBody = Type.Object({ ...ClientFields, ...ProfileFields, key: Type.Optional(Key), layer_ids: LayerIds });

export const CreateUserBody = Type.Object({
  ...ClientFields,
  ...ProfileFields,
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  layer_ids: LayerIds,
});

export const UpdateUserBody = Type.Object({ ...ClientFields, ...TokenFields, ...ProfileFields });

export const AccountProfileBody = Type.Object({
  ...TokenFields,
  ...ProfileFields,
  desired_username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});
