// Group request and response schemas (reference §4.7). Response schemas are for the OpenAPI
// document only (http/openapi.ts).
import { Type, type TSchema } from '@sinclair/typebox';
import { Id, PagingQuery, TokenFields, Url } from './common.js';
import { doc } from './response-objects.js';

export const GroupTokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'the group token' }) });

const GroupFields = {
  ...TokenFields,
  title: Type.Optional(Type.String({ maxLength: 200 })),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  visibility: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('open'), Type.Literal('invite')], {
    description: 'public or open: any user of the application holding the token may see and join it; invite: only members the owner added',
  })),
  publish_access: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')], {
    description: 'open: whoever joins publishes; closed: only members the application (or the owner) added publish',
  })),
};
export const GroupBody = Type.Object(GroupFields);

/** `user_id`: an application token's user (body, or query string of a POST). */
export const GroupSubject = Type.Object({ ...TokenFields, user_id: Type.Optional(Id) });
export const GroupPaging = Type.Object({ ...TokenFields, ...PagingQuery });
export const GroupSubscriptionsQuery = Type.Object({ ...TokenFields, ...PagingQuery, user_id: Type.Optional(Id) });
export const GroupLocationsQuery = Type.Object({ ...TokenFields, ...PagingQuery, count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) });

/** Any other field is the message (MapAttack posts `{"mapattack": {...}}`); `x-storable-keys` refuses keys no store can hold. */
export const GroupMessageBody = Type.Object({
  ...TokenFields,
  push: Type.Optional(Type.Union([Type.Boolean(), Id, Type.Array(Id, { maxItems: 1000 })], {
    description: 'true: push to every member; a user_id, or a list of them: push to those members',
  })),
  text: Type.Optional(Type.String({ maxLength: 2000 })),
  url: Type.Optional(Url),
}, { additionalProperties: true, 'x-storable-keys': true });

// Responses.
const closed = { additionalProperties: false } as const;
const Iso = Type.String({ description: 'ISO-8601 with the offset of the request\'s zone' });
const UnixSeconds = Type.Integer({ description: 'Unix seconds' });
const paged = (name: string, item: TSchema) => Type.Object({ [name]: Type.Array(item), paging: doc('Paging') }, closed);

export const GroupCreated = Type.Object({ group_token: Type.String() }, closed);
export const GroupInfo = Type.Object({
  group_token: Type.String(), title: Type.String(), description: Type.String(),
  visibility: Type.String(), publish_access: Type.String(), active: Type.Literal(1), date_created: Iso, date_created_ts: UnixSeconds,
  membership: Type.Optional(Type.String({ description: 'group/subscriptions: publishing or subscribed' })),
}, closed);
export const GroupList = paged('groups', GroupInfo);
export const Membership = Type.Object({
  result: Type.Literal('ok'), group_token: Type.String(), user_id: Type.Optional(Type.String()),
  membership: Type.Optional(Type.Union([Type.Literal('publishing'), Type.Literal('subscribed')])),
}, closed);
const Profile = Type.Object({
  user_id: Type.String(), username: Type.String(), name: Type.String(), display_name: Type.String(), bio: Type.String(),
  website: Type.String(), profile_image: Type.String(), is_anonymous: Type.Union([Type.Literal(0), Type.Literal(1)]),
}, { ...closed, description: 'A member\'s public profile' });
export const GroupMembers = Type.Object({ members: Type.Array(Type.Object({ profile: Profile, membership: Type.String() }, closed)) }, closed);
export const GroupMessagePosted = Type.Object({ result: Type.Literal('ok'), message_id: Type.String(), total: Type.Integer({ description: 'members it was delivered to' }) }, closed);
export const GroupMessages = paged('messages', Type.Object({
  date: Iso, date_ts: UnixSeconds, message: Type.Record(Type.String(), Type.Unknown(), { description: 'as posted' }), type: Type.Literal('message'),
  user: Type.Union([Type.Object({ user_id: Type.String(), username: Type.String() }), Type.Null()], { description: 'null when the application posted' }),
}, closed));
/** A member's point: who, where (flat, as MapAttack reads it), and the point as location/last shows it. */
export const LivePoint = Type.Object({ user_id: Type.String(), username: Type.String(), latitude: Type.Number(), longitude: Type.Number() }, {
  additionalProperties: true, description: 'user_id, username, latitude, longitude, then the point as location/last shows it (uuid, date, date_ts, location, raw)',
});
export const GroupLast = Type.Object({ locations: Type.Array(LivePoint) }, closed);
export const GroupLocations = paged('locations', Type.Object({ user: Profile, history: Type.Array(doc('LocationPoint')) }, closed));
