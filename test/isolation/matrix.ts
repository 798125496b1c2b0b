// The tenant-isolation matrix: for every /1/ route, how it names objects (path ids, user_id and
// other id fields) and which credentials it takes. The isolation test enumerates the routes the
// server really has and fails for any route missing here, so a new route must be added to it.

export type Cred = 'app' | 'user' | 'basic';
export type SlotKind = 'user' | 'layer' | 'place' | 'trigger' | 'layerKey' | 'placeKey' | 'geonote' | 'shareToken' | 'application' | 'group' | 'firing';

/** An id the request carries: a path parameter, or a query/body field. */
export interface Slot {
  name: string;
  of: SlotKind;
  in: 'path' | 'query' | 'body';
}

/** What a tenant's fixtures are, as far as a request needs them. */
export interface TenantView {
  label: string;
  place: { latitude: number; longitude: number };
  unique(): string;
}

type Fields = (t: TenantView) => Record<string, unknown>;

/** A route that acts on named objects: another application's object must read as a missing one. */
export interface IdsCase {
  kind: 'ids';
  creds: Cred[];
  slots: Slot[];
  /** Other fields a valid request needs. */
  fields?: Fields;
}

/** A route that lists the caller's objects: nothing of another application may appear. */
export interface ListCase {
  kind: 'list';
  creds: Cred[];
  fields?: Fields;
}

/** A route that acts on the caller itself (or creates): it must leave the other application alone. */
export interface SelfCase {
  kind: 'self';
  creds: Cred[];
  fields?: Fields;
  /** A non-object body (location/update takes a JSON array). */
  json?: (t: TenantView) => unknown;
  /** What the answer must say, beyond mentioning nothing of the other application. */
  check?: (status: number, body: unknown) => string | undefined;
}

export type RouteCase = IdsCase | ListCase | SelfCase;

const path = (name: string, of: SlotKind): Slot => ({ name, of, in: 'path' });
const query = (name: string, of: SlotKind): Slot => ({ name, of, in: 'query' });
const body = (name: string, of: SlotKind): Slot => ({ name, of, in: 'body' });

const ALL: Cred[] = ['app', 'user', 'basic'];
const TOKENS: Cred[] = ['app', 'user'];
const point = (t: TenantView) => ({ latitude: t.place.latitude, longitude: t.place.longitude });

/** Keyed by `METHOD /path` with Fastify's `:param` syntax. Routes with several shapes list each. */
export const MATRIX: Record<string, RouteCase[]> = {
  // oauth and users
  'POST /1/oauth/token': [{ kind: 'self', creds: ['basic'], fields: () => ({ grant_type: 'client_credentials' }) }],
  'POST /1/user/create': [{ kind: 'self', creds: ['basic'], fields: (t) => ({ username: t.unique(), password: 'pw' }) }],
  'POST /1/user/create_anon': [{ kind: 'self', creds: ['basic'], fields: (t) => ({ key: t.unique() }) }],
  'GET /1/user/list': [{ kind: 'list', creds: ALL }],
  'GET /1/user/info/:id': [{ kind: 'ids', creds: ALL, slots: [path('id', 'user')] }],
  'POST /1/user/update/:id': [{ kind: 'ids', creds: ALL, slots: [path('id', 'user')], fields: () => ({ name: 'hijacked', extra: { hijacked: 1 } }) }],
  'POST /1/user/delete/:id': [{ kind: 'ids', creds: ALL, slots: [path('id', 'user')] }],

  // account: the caller's own user
  'GET /1/account/profile': [{ kind: 'self', creds: ALL }],
  'POST /1/account/profile': [{ kind: 'self', creds: ['user'], fields: () => ({ bio: 'mine' }) }],
  'GET /1/account/username': [{ kind: 'self', creds: ['user'] }],
  'POST /1/account/username': [{ kind: 'self', creds: ['user'], fields: (t) => ({ username: t.unique() }) }],
  'POST /1/account/check_username': [{
    kind: 'self', creds: ALL, fields: () => ({ desired_username: 'walker-A' }),
    // Usernames are per application: A's "walker-A" is free in B.
    check: (status, b) => (status === 200 && (b as { username?: string }).username === 'available' ? undefined : `expected available, got ${status} ${JSON.stringify(b)}`),
  }],
  'POST /1/account/set_apn_token': [{ kind: 'self', creds: ['user'], fields: (t) => ({ device_id: 'd', token: t.unique() }) }],
  'POST /1/account/set_gcm_token': [{ kind: 'self', creds: ['user'], fields: (t) => ({ gcm_token: t.unique() }) }],
  'POST /1/account/set_c2dm_token': [{ kind: 'self', creds: ['user'], fields: (t) => ({ c2dm_token: t.unique() }) }],

  // locations
  'POST /1/location/update': [{
    kind: 'self', creds: ['user'],
    json: (t) => [{ date: new Date().toISOString(), location: { type: 'point', position: { ...point(t), horizontal_accuracy: 10 } }, client: { name: 'isolation', version: '1', platform: 'test', hardware: 'vm' } }],
  }],
  'GET /1/location/last': [{ kind: 'ids', creds: TOKENS, slots: [query('user_id', 'user')] }],
  'GET /1/location/history': [{ kind: 'ids', creds: TOKENS, slots: [query('user_id', 'user')] }],
  // No object: the place a point is in, from bundled data; the same for every application.
  'GET /1/location/context': [{
    kind: 'self', creds: ALL, fields: point,
    check: (status, b) => (status === 200 && typeof (b as { locality_name?: unknown }).locality_name === 'string' ? undefined : `expected a locality, got ${status} ${JSON.stringify(b)}`),
  }],

  // layers
  'POST /1/layer/create': [{ kind: 'self', creds: ['app'], fields: (t) => ({ name: t.unique() }) }],
  'POST /1/layer/update/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'layer')], fields: () => ({ description: 'hijacked' }) }],
  'POST /1/layer/delete/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'layer')] }],
  'GET /1/layer/info/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'layer')], fields: () => ({ include_places: 1, count_places: 1 }) }],
  'GET /1/layer/info': [{ kind: 'ids', creds: TOKENS, slots: [query('key', 'layerKey')], fields: () => ({ include_places: 1 }) }],
  'GET /1/layer/list': [{ kind: 'list', creds: TOKENS }],
  'POST /1/layer/subscribe/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'layer'), body('user_id', 'user')] }],
  'POST /1/layer/unsubscribe/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'layer'), body('user_id', 'user')] }],
  'GET /1/layer/subscriptions': [{ kind: 'ids', creds: TOKENS, slots: [query('user_id', 'user')] }, { kind: 'list', creds: ['user'] }],
  'GET /1/layer/users/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'layer')] }],

  // places
  'POST /1/place/create': [
    { kind: 'ids', creds: TOKENS, slots: [body('layer_id', 'layer')], fields: (t) => ({ ...point(t), radius: 100, name: t.unique() }) },
    { kind: 'ids', creds: TOKENS, slots: [body('layer_id', 'layer')], fields: (t) => ({ geocode: 'Portland, OR', name: t.unique() }) },
  ],
  'POST /1/place/update/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'place'), body('layer_id', 'layer')], fields: () => ({ radius: 123, description: 'hijacked' }) }],
  'POST /1/place/delete/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'place')] }],
  'GET /1/place/info/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'place')] }],
  'GET /1/place/info': [{ kind: 'ids', creds: TOKENS, slots: [query('key', 'placeKey'), query('layer_id', 'layer')] }],
  'GET /1/place/list': [
    { kind: 'ids', creds: TOKENS, slots: [query('layer_id', 'layer')], fields: () => ({ include_unnamed: 1 }) },
    { kind: 'list', creds: TOKENS, fields: () => ({ include_unnamed: 1, limit: 0 }) },
  ],
  'GET /1/place/nearby': [
    { kind: 'ids', creds: TOKENS, slots: [query('layer_id', 'layer')], fields: (t) => ({ ...point(t), distance: 1000 }) },
    // Searching right at the other application's place must not find it.
    { kind: 'list', creds: TOKENS, fields: () => ({ latitude: 45.5165, longitude: -122.6764, distance: 20_000_000 }) },
  ],

  // triggers
  'POST /1/trigger/create': [
    { kind: 'ids', creds: TOKENS, slots: [body('place_id', 'place')], fields: () => ({ type: 'message', text: 'hi' }) },
    { kind: 'ids', creds: TOKENS, slots: [body('layer_id', 'layer')], fields: () => ({ type: 'message', text: 'hi' }) },
    { kind: 'ids', creds: TOKENS, slots: [body('place_layer_id', 'layer')], fields: (t) => ({ type: 'message', text: 'hi', ...point(t), radius: 50 }) },
  ],
  'POST /1/trigger/update/:id': [
    { kind: 'ids', creds: TOKENS, slots: [path('id', 'trigger')], fields: () => ({ text: 'hijacked' }) },
    { kind: 'ids', creds: TOKENS, slots: [path('id', 'trigger'), body('place_id', 'place')] },
  ],
  'POST /1/trigger/delete/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'trigger')] }],
  'GET /1/trigger/info/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'trigger')] }],
  'GET /1/trigger/list': [
    { kind: 'ids', creds: TOKENS, slots: [query('place_id', 'place')] },
    { kind: 'ids', creds: TOKENS, slots: [query('layer_id', 'layer')], fields: () => ({ on: 'places' }) },
    { kind: 'list', creds: TOKENS },
  ],

  // Planned by issue 3 (trigger engine); checked as soon as they exist.
  'POST /1/trigger/run/:id': [
    { kind: 'ids', creds: TOKENS, slots: [path('id', 'trigger')] },
    { kind: 'ids', creds: TOKENS, slots: [path('id', 'trigger'), body('user_id', 'user')] },
    { kind: 'ids', creds: TOKENS, slots: [path('id', 'trigger'), body('place_id', 'place')] },
  ],
  'GET /1/trigger/history': [
    { kind: 'ids', creds: TOKENS, slots: [query('user_id', 'user')] },
    { kind: 'ids', creds: TOKENS, slots: [query('layer_id', 'layer')] },
    { kind: 'ids', creds: TOKENS, slots: [query('place_id', 'place')] },
    { kind: 'list', creds: TOKENS },
  ],
  'GET /1/trigger/history/attempts': [{ kind: 'ids', creds: TOKENS, slots: [query('event_id', 'firing')] }],
  'POST /1/trigger/history/redeliver': [{ kind: 'ids', creds: ['app'], slots: [body('event_id', 'firing')] }],
  'GET /1/trigger/state/:id': [
    { kind: 'ids', creds: TOKENS, slots: [path('id', 'trigger')] },
    { kind: 'ids', creds: TOKENS, slots: [path('id', 'trigger'), query('user_id', 'user')] },
    { kind: 'ids', creds: TOKENS, slots: [path('id', 'trigger'), query('place_id', 'place')] },
  ],
  'GET /1/trigger/state': [{ kind: 'ids', creds: TOKENS, slots: [query('user_id', 'user')] }],
  'GET /1/trigger/timeline': [
    { kind: 'ids', creds: TOKENS, slots: [query('user_id', 'user')] },
    { kind: 'ids', creds: TOKENS, slots: [query('user_id', 'user'), query('trigger_id', 'trigger')] },
    { kind: 'ids', creds: TOKENS, slots: [query('user_id', 'user'), query('place_id', 'place')] },
  ],
  'POST /1/trigger/replay': [{
    kind: 'ids', creds: TOKENS, slots: [body('user_id', 'user')],
    fields: (t) => ({ points: [{ date: new Date().toISOString(), location: { position: point(t) } }] }),
  }],
  'POST /1/message/send': [{ kind: 'ids', creds: TOKENS, slots: [body('user_id', 'user')], fields: () => ({ text: 'hello' }) }],
  'GET /1/message/list': [{ kind: 'ids', creds: TOKENS, slots: [query('user_id', 'user')] }, { kind: 'list', creds: ['user'] }],
  'GET /1/stream': [{ kind: 'self', creds: ['user'] }],
  // Only the user_id case: without a failing id the answer is a stream that stays open.
  'GET /1/inspector/events': [{ kind: 'ids', creds: ['app'], slots: [query('user_id', 'user')] }],
  // Each job is a call of its own with the batch's token: the jobs must show B nothing of A either.
  'POST /1/batch/run': [{
    kind: 'self', creds: TOKENS,
    fields: () => ({ batch: [{ relative_url: 'layer/list' }, { relative_url: 'place/list' }, { relative_url: 'trigger/list' }, { relative_url: 'layer/create', body: { name: 'batched' } }] }),
  }],

  // Issue 32: geonotes, share links, applications and the smaller methods.
  'POST /1/geonote/create': [{ kind: 'ids', creds: ['user'], slots: [body('place_id', 'place')], fields: () => ({ text: 'note' }) }],
  'GET /1/geonote/list_set': [{ kind: 'list', creds: ['user'] }],
  'GET /1/geonote/list_recent': [{ kind: 'list', creds: ['user'] }],
  'GET /1/geonote/info/:id': [{ kind: 'ids', creds: ['user'], slots: [path('id', 'geonote')] }],
  'POST /1/link/create': [{ kind: 'self', creds: ['user'], fields: () => ({ minutes: 10 }) }],
  'POST /1/trip/create': [{ kind: 'self', creds: ['user'], fields: () => ({ minutes: 10, description: 'A trip' }) }],
  'POST /1/link/expire': [{ kind: 'ids', creds: ['user'], slots: [body('token', 'shareToken')] }],
  'POST /1/link/activate': [{ kind: 'ids', creds: ['user'], slots: [body('token', 'shareToken')] }],
  'POST /1/link/deactivate': [{ kind: 'ids', creds: ['user'], slots: [body('token', 'shareToken')] }],
  'GET /1/link/stats': [{ kind: 'ids', creds: ['user'], slots: [query('token', 'shareToken')] }],
  'GET /1/share/last': [{ kind: 'ids', creds: TOKENS, slots: [query('geoloqi_token', 'shareToken')] }],
  'GET /1/share/history': [{ kind: 'ids', creds: TOKENS, slots: [query('geoloqi_token', 'shareToken')] }],
  'GET /1/share/info': [{ kind: 'ids', creds: TOKENS, slots: [query('geoloqi_token', 'shareToken')] }],
  'GET /1/application/list': [{ kind: 'list', creds: ['app'] }],
  'GET /1/application/info/:id': [{ kind: 'ids', creds: ['app'], slots: [path('id', 'application')] }],
  'GET /1/application/layers/:id': [{ kind: 'ids', creds: ['app'], slots: [path('id', 'application')] }],
  'GET /1/application/usage/:id': [{ kind: 'ids', creds: ['app'], slots: [path('id', 'application')] }],
  'GET /1/location/tracking_profile': [{ kind: 'ids', creds: TOKENS, slots: [query('user_id', 'user')] }],
  'POST /1/location/tracking_profile': [{ kind: 'ids', creds: TOKENS, slots: [body('user_id', 'user')], fields: () => ({ profile: 'off' }) }],
  'POST /1/location/delete_batch/:id': [{ kind: 'ids', creds: TOKENS, slots: [body('user_id', 'user')], fields: () => ({}) }],
  'GET /1/layer/nearby': [{ kind: 'list', creds: TOKENS, fields: () => ({ latitude: 45.5165, longitude: -122.6764 }) }],
  'POST /1/layer/nearby': [{ kind: 'list', creds: TOKENS, fields: () => ({ latitude: 45.5165, longitude: -122.6764 }) }],
  'GET /1/layer/subscription/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'layer'), query('user_id', 'user')] }],
  'POST /1/layer/subscription/:id': [{ kind: 'ids', creds: TOKENS, slots: [path('id', 'layer'), body('user_id', 'user')], fields: () => ({ settings: { hijacked: 1 } }) }],
  'GET /1/layer/user_clusters/:id': [{ kind: 'ids', creds: ['app'], slots: [path('id', 'layer')] }],
  'GET /1/place/list_unnamed': [
    { kind: 'ids', creds: TOKENS, slots: [query('layer_id', 'layer')] },
    { kind: 'list', creds: TOKENS, fields: () => ({ limit: 0 }) },
  ],
  'GET /1/user/list/:id': [{ kind: 'ids', creds: ALL, slots: [path('id', 'user')] }],
  'POST /1/user/secure_delete/:id': [{ kind: 'ids', creds: ALL, slots: [path('id', 'user')] }],
  'GET /1/account/privacy': [{ kind: 'self', creds: ['user'] }],
  'POST /1/account/privacy': [{ kind: 'self', creds: ['user'], fields: () => ({ public_location: 1 }) }],
  'GET /1/account/connections': [{ kind: 'self', creds: ['user'] }],
  // groups (reference §4.7): a group token names a group of the caller's application only
  'POST /1/group/create': [{ kind: 'self', creds: TOKENS, fields: (t) => ({ title: t.unique() }) }],
  'POST /1/group/update/:token': [{ kind: 'ids', creds: TOKENS, slots: [path('token', 'group')], fields: () => ({ title: 'hijacked' }) }],
  'POST /1/group/delete/:token': [{ kind: 'ids', creds: TOKENS, slots: [path('token', 'group')] }],
  'POST /1/group/join/:token': [
    { kind: 'ids', creds: TOKENS, slots: [path('token', 'group')] },
    { kind: 'ids', creds: TOKENS, slots: [path('token', 'group'), body('user_id', 'user')] },
  ],
  'POST /1/group/leave/:token': [
    { kind: 'ids', creds: TOKENS, slots: [path('token', 'group')] },
    { kind: 'ids', creds: TOKENS, slots: [path('token', 'group'), body('user_id', 'user')] },
  ],
  'POST /1/group/message/:token': [{ kind: 'ids', creds: TOKENS, slots: [path('token', 'group')], fields: () => ({ hijacked: 1, text: 'hijacked' }) }],
  'GET /1/group/list': [{ kind: 'list', creds: TOKENS }],
  'GET /1/group/info/:token': [{ kind: 'ids', creds: TOKENS, slots: [path('token', 'group')] }],
  'GET /1/group/members/:token': [{ kind: 'ids', creds: TOKENS, slots: [path('token', 'group')] }],
  'GET /1/group/subscriptions': [{ kind: 'ids', creds: TOKENS, slots: [query('user_id', 'user')] }, { kind: 'list', creds: ['user'] }],
  'GET /1/group/messages/:token': [{ kind: 'ids', creds: TOKENS, slots: [path('token', 'group')] }],
  'GET /1/group/locations/:token': [{ kind: 'ids', creds: TOKENS, slots: [path('token', 'group')] }],
  'GET /1/group/last/:token': [{ kind: 'ids', creds: TOKENS, slots: [path('token', 'group')] }],
  // Issue 32, second part. Both applications are pre-approved for permanent tokens (isolation.test.ts).
  'POST /1/account/permanent_token': [{ kind: 'self', creds: ['user'] }],
  'GET /1/application/api_hits/:id': [{ kind: 'ids', creds: ['app'], slots: [path('id', 'application')] }],
  'POST /1/message/broadcast': [{ kind: 'ids', creds: ['app'], slots: [body('layer_id', 'layer')], fields: (t) => ({ ...point(t), radius: 5000, text: 'hi' }) }],
  'POST /1/message/count_broadcast': [{ kind: 'ids', creds: ['app'], slots: [body('layer_id', 'layer')], fields: (t) => ({ ...point(t), radius: 5000 }) }],
  'POST /1/message/device': [
    { kind: 'ids', creds: TOKENS, slots: [body('user_id', 'user')], fields: () => ({ data: { n: 1 } }) },
    { kind: 'ids', creds: TOKENS, slots: [body('layer_id', 'layer')], fields: () => ({ data: { n: 1 } }) },
  ],
};

// Action methods old clients call with GET when they have no parameters (src/routes/get-or-post.ts):
// their GET is checked as their POST, its fields in the query string.
for (const route of [
  '/1/user/delete/:id', '/1/layer/delete/:id', '/1/layer/subscribe/:id', '/1/layer/unsubscribe/:id',
  '/1/place/delete/:id', '/1/trigger/delete/:id', '/1/trigger/run/:id',
  '/1/group/delete/:token', '/1/group/join/:token', '/1/group/leave/:token', '/1/account/permanent_token',
]) MATRIX[`GET ${route}`] = MATRIX[`POST ${route}`];
