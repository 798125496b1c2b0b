// Schema pieces shared by the route groups. TypeBox schemas are both the validation and the types.
import { Type, type TSchema } from '@sinclair/typebox';
import { MAX_DATE_S, MIN_DATE_S } from './dates.js';

export const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
export const IdParams = Type.Object({ id: Id });
export const Latitude = Type.Number({ minimum: -90, maximum: 90 });
export const Longitude = Type.Number({ minimum: -180, maximum: 180 });
/** Metres; 0 is refused: a place with no radius cannot geofence. */
export const Radius = Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 });
/** Booleans travel as 1/0, numbers or strings (reference §1); "true"/"false" coerce too. */
// Typed as the values it admits (an integer schema's type is any number); the schema is the union's.
export const Flag = Type.Unsafe<0 | 1 | boolean>(Type.Union([Type.Integer({ minimum: 0, maximum: 1 }), Type.Boolean()], { description: '1, 0, true or false' }));
/** Unix seconds or an ISO-8601 string (reference §1, "Dates in"). */
export const DateInput = Type.Union([Type.Number(), Type.String({ maxLength: 64 })]);
/**
 * A list's `after`/`before`: a DateInput whose Unix seconds are bounded in the schema too, to the
 * years every date is read within (schemas/dates.ts). Unix seconds sent as text are numbers to the
 * schema (a query's values are text), so the text branch takes no number; an ISO-8601 date is
 * checked when it is read.
 */
export const RangeDate = Type.Union([
  Type.Number({ minimum: MIN_DATE_S, maximum: MAX_DATE_S }),
  Type.String({ maxLength: 64, pattern: '^(?!\\s*[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?\\s*$)' }),
], { description: 'a Unix timestamp or an ISO-8601 date between the years 0001 and 9999' });
/** location/history's range and order, which share/history takes too (reference §4.13). */
export const HistoryRange = {
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  after: Type.Optional(RangeDate),
  before: Type.Optional(RangeDate),
  sort: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
};
/** The description is what a refused value is told (http/validation-message.ts). */
export const TimeOfDay = Type.String({ pattern: '^([01]?\\d|2[0-3]):[0-5]\\d(:[0-5]\\d)?$', description: 'a time of day HH:MM or HH:MM:SS (00:00-23:59)' });
/** A free-form hash; `x-storable-keys` (src/http/storable-keys.ts) refuses keys no store can hold. */
export const Extra = Type.Record(Type.String(), Type.Unknown(), { 'x-storable-keys': true });
export const Key = Type.String({ minLength: 1, maxLength: 200 });
export const ShortText = (max = 1000) => Type.String({ maxLength: max });
export const Url = Type.String({ maxLength: 2048 });

/**
 * The deepest a list may be paged (reference §6.10's offset). A store steps over every row before
 * the offset, so this bounds a list's work; a narrower filter reaches further. Without it, an offset
 * past 2^63 was an error of the store (a 500) rather than of the request.
 */
export const MAX_OFFSET = 100_000;
export const Offset = Type.Integer({ minimum: 0, maximum: MAX_OFFSET });

export const PagingQuery = {
  offset: Type.Optional(Type.Integer({ ...Offset, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 25 })),
};

export const ErrorBodySchema = Type.Object({
  error_code: Type.Integer(),
  error: Type.String(),
  error_description: Type.String(),
});

export const Ok = Type.Object({ result: Type.Literal('ok') });

/** Credentials may also travel as body/query fields; declare them so strict bodies accept them. */
export const TokenFields = {
  access_token: Type.Optional(Type.String()),
  oauth_token: Type.Optional(Type.String()),
};
export const ClientFields = {
  client_id: Type.Optional(Type.String({ maxLength: 200 })),
  client_secret: Type.Optional(Type.String({ maxLength: 200 })),
};

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
