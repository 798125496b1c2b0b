// Which credentials each route takes, a request its schema accepts and requests it refuses (400):
// the credentials-first test (credentials-first.test.ts) sends each with every credential the route
// refuses, and the answer must not depend on the input. Like the isolation matrix, it enumerates
// the routes the server really has and fails for any route missing here.

/** app/user: an access token of that kind; basic: key and secret as HTTP Basic; key: `client_id` alone, as a field. */
export type Kind = 'app' | 'user' | 'basic' | 'key' | 'admin';

export interface Input {
  /** The path, ids filled in (default: the route's path, which has none). */
  path?: string;
  query?: Record<string, unknown>;
  json?: unknown;
}

export interface Fixtures {
  unique(): string;
  /** An ISO date of the server's clock. */
  now(): string;
  /** The application's default layer (message/broadcast answers a missing layer with a 403). */
  defaultLayer(): string;
}

export interface CredentialsCase {
  /** The credential kinds the route takes; the first one is used for the valid request. */
  takes: Kind[];
  valid: (f: Fixtures) => Input;
  /** Requests the schema refuses (none for routes with no input but credentials). */
  bad: Array<(f: Fixtures) => Input>;
}

/** Ids of the right shape that name nothing; LONG is one character over any id (64). */
const MISSING = 'Mi55ing0';
const LONG = 'x'.repeat(65);

const APP: Kind[] = ['app'];
const USER: Kind[] = ['user'];
const USER_OR_APP: Kind[] = ['user', 'app'];
const APP_OR_USER: Kind[] = ['app', 'user'];
const SECRET_OR_APP: Kind[] = ['basic', 'app'];
const KEY: Kind[] = ['key', 'basic'];
const ADMIN: Kind[] = ['admin'];

const at = (path: string, rest: Input = {}): Input => ({ path, ...rest });
/** The same route with the id over 64 characters: a 400 invalid_input. */
const longId = (path: string, rest: Input = {}) => () => at(path.replace(MISSING, LONG), rest);

export const CREDENTIALS: Record<string, CredentialsCase | { exempt: string }> = {
  // Its client is authenticated in the handler, the way the grant type asks (a secret for
  // client_credentials only), after its parameters are read.
  'POST /1/oauth/token': { exempt: 'authenticates by grant type, after reading the grant' },
  'POST /1/batch/run': { exempt: 'takes any credential or none: each job checks its own (a 401 inside the 200)' },

  'POST /1/user/create': {
    takes: KEY, valid: (f) => ({ json: { username: f.unique(), password: 'pw' } }),
    bad: [() => ({ json: { username: '', password: 'pw' } })],
  },
  'POST /1/user/create_anon': { takes: KEY, valid: () => ({ json: {} }), bad: [() => ({ json: { key: { a: 1 } } }), () => ({ json: { extra: { $where: 1 } } })] },
  'GET /1/user/list': { takes: SECRET_OR_APP, valid: () => ({ query: { limit: 5 } }), bad: [() => ({ query: { limit: -1 } }), () => ({ query: { limit: 'abc' } })] },
  'GET /1/user/info/:id': { takes: SECRET_OR_APP, valid: () => at(`/1/user/info/${MISSING}`), bad: [longId(`/1/user/info/${MISSING}`)] },
  'POST /1/user/update/:id': {
    takes: SECRET_OR_APP, valid: () => at(`/1/user/update/${MISSING}`, { json: { name: 'n' } }),
    bad: [longId(`/1/user/update/${MISSING}`, { json: { name: 'n' } }), () => at(`/1/user/update/${MISSING}`, { json: { email: 'not an email' } })],
  },
  'POST /1/user/delete/:id': { takes: SECRET_OR_APP, valid: () => at(`/1/user/delete/${MISSING}`, { json: {} }), bad: [longId(`/1/user/delete/${MISSING}`, { json: {} })] },

  'GET /1/account/profile': { takes: USER, valid: () => ({}), bad: [] },
  'POST /1/account/profile': { takes: USER, valid: () => ({ json: { bio: 'mine' } }), bad: [() => ({ json: { public_location: 'maybe' } })] },
  'GET /1/account/username': { takes: USER, valid: () => ({}), bad: [] },
  'POST /1/account/username': { takes: USER, valid: (f) => ({ json: { username: f.unique() } }), bad: [() => ({ json: {} })] },
  'POST /1/account/check_username': {
    takes: ['user', 'app', 'basic', 'key'], valid: () => ({ json: { desired_username: 'someone' } }), bad: [() => ({ json: {} })],
  },
  'POST /1/account/set_apn_token': { takes: USER, valid: (f) => ({ json: { token: f.unique() } }), bad: [() => ({ json: { token: 'x', mode: 'prod' } })] },
  'POST /1/account/set_gcm_token': { takes: USER, valid: (f) => ({ json: { gcm_token: f.unique() } }), bad: [() => ({ json: {} })] },
  'POST /1/account/set_c2dm_token': { takes: USER, valid: (f) => ({ json: { c2dm_token: f.unique() } }), bad: [() => ({ json: { c2dm_token: '' } })] },

  'POST /1/location/update': {
    takes: USER,
    valid: (f) => ({ json: [{ date: f.now(), location: { type: 'point', position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 } } }] }),
    bad: [() => ({ json: [{}] })],
  },
  'GET /1/location/last': { takes: USER_OR_APP, valid: () => ({}), bad: [() => ({ query: { user_id: LONG } })] },
  'GET /1/location/context': {
    takes: ['user', 'app', 'basic'], valid: () => ({ query: { latitude: 45.5, longitude: -122.6 } }),
    bad: [() => ({ query: { latitude: 91, longitude: -122.6 } }), () => ({ query: { latitude: 45.5 } })],
  },
  'GET /1/location/history': { takes: USER_OR_APP, valid: () => ({ query: { count: 5 } }), bad: [() => ({ query: { count: 0 } }), () => ({ query: { sort: 'up' } })] },

  'POST /1/layer/create': { takes: APP, valid: (f) => ({ json: { name: f.unique() } }), bad: [() => ({ json: {} }), () => ({ json: { name: 'n', radius: 0 } })] },
  'POST /1/layer/update/:id': {
    takes: APP, valid: () => at(`/1/layer/update/${MISSING}`, { json: { description: 'd' } }),
    bad: [longId(`/1/layer/update/${MISSING}`, { json: {} }), () => at(`/1/layer/update/${MISSING}`, { json: { trigger_rate_limit: -1 } })],
  },
  'POST /1/layer/delete/:id': { takes: APP, valid: () => at(`/1/layer/delete/${MISSING}`, { json: {} }), bad: [longId(`/1/layer/delete/${MISSING}`, { json: {} })] },
  'GET /1/layer/info/:id': {
    takes: APP, valid: () => at(`/1/layer/info/${MISSING}`),
    bad: [longId(`/1/layer/info/${MISSING}`), () => at(`/1/layer/info/${MISSING}`, { query: { include_places: 'maybe' } })],
  },
  'GET /1/layer/info': { takes: APP, valid: () => ({ query: { key: 'missing-key' } }), bad: [() => ({ query: {} })] },
  'GET /1/layer/list': { takes: APP_OR_USER, valid: () => ({}), bad: [] },
  'POST /1/layer/subscribe/:id': {
    takes: APP_OR_USER, valid: () => at(`/1/layer/subscribe/${MISSING}`, { json: { user_id: MISSING } }),
    bad: [longId(`/1/layer/subscribe/${MISSING}`, { json: {} }), () => at(`/1/layer/subscribe/${MISSING}`, { json: { user_id: 'not an id' } })],
  },
  'POST /1/layer/unsubscribe/:id': {
    takes: APP_OR_USER, valid: () => at(`/1/layer/unsubscribe/${MISSING}`, { json: { user_id: MISSING } }),
    bad: [longId(`/1/layer/unsubscribe/${MISSING}`, { json: {} })],
  },
  'GET /1/layer/subscriptions': { takes: APP_OR_USER, valid: () => ({ query: { user_id: MISSING } }), bad: [() => ({ query: { user_id: LONG } })] },
  'GET /1/layer/users/:id': { takes: APP, valid: () => at(`/1/layer/users/${MISSING}`), bad: [longId(`/1/layer/users/${MISSING}`)] },

  'POST /1/place/create': {
    takes: APP, valid: () => ({ json: { latitude: 45.5, longitude: -122.6, radius: 100 } }),
    bad: [() => ({ json: { latitude: 91, longitude: -122.6, radius: 100 } }), () => ({ json: { latitude: ' 45', longitude: -122.6, radius: 100 } })],
  },
  'POST /1/place/update/:id': {
    takes: APP, valid: () => at(`/1/place/update/${MISSING}`, { json: { radius: 50 } }),
    bad: [() => at(`/1/place/update/${MISSING}`, { json: { radius: -1 } }), longId(`/1/place/update/${MISSING}`, { json: {} })],
  },
  'POST /1/place/delete/:id': { takes: APP, valid: () => at(`/1/place/delete/${MISSING}`, { json: {} }), bad: [longId(`/1/place/delete/${MISSING}`, { json: {} })] },
  'GET /1/place/info/:id': { takes: APP, valid: () => at(`/1/place/info/${MISSING}`), bad: [longId(`/1/place/info/${MISSING}`)] },
  'GET /1/place/info': { takes: APP, valid: () => ({ query: { key: 'missing-key' } }), bad: [() => ({ query: { key: 'k', layer_id: LONG } })] },
  'GET /1/place/list': { takes: APP_OR_USER, valid: () => ({ query: { limit: 5 } }), bad: [() => ({ query: { limit: 'abc' } }), () => ({ query: { sort: 'size' } })] },
  'GET /1/place/nearby': {
    takes: APP_OR_USER, valid: () => ({ query: { latitude: 45.5, longitude: -122.6 } }),
    bad: [() => ({ query: { latitude: 'abc', longitude: -122.6 } }), () => ({ query: { latitude: 45.5, longitude: -122.6, distance: '0x10' } })],
  },

  'POST /1/trigger/create': {
    takes: APP, valid: () => ({ json: { place_id: MISSING, type: 'message', text: 'hi' } }),
    bad: [() => ({ json: { place_id: MISSING, type: 'sms', text: 'hi' } })],
  },
  'POST /1/trigger/update/:id': {
    takes: APP, valid: () => at(`/1/trigger/update/${MISSING}`, { json: { text: 't' } }),
    bad: [longId(`/1/trigger/update/${MISSING}`, { json: {} }), () => at(`/1/trigger/update/${MISSING}`, { json: { trigger_on: 'stay' } })],
  },
  'POST /1/trigger/delete/:id': { takes: APP, valid: () => at(`/1/trigger/delete/${MISSING}`, { json: {} }), bad: [longId(`/1/trigger/delete/${MISSING}`, { json: {} })] },
  'GET /1/trigger/info/:id': { takes: APP, valid: () => at(`/1/trigger/info/${MISSING}`), bad: [longId(`/1/trigger/info/${MISSING}`)] },
  'GET /1/trigger/list': { takes: APP_OR_USER, valid: () => ({}), bad: [() => ({ query: { on: 'everything' } }), () => ({ query: { limit: 1001 } })] },
  'POST /1/trigger/run/:id': {
    takes: APP, valid: () => at(`/1/trigger/run/${MISSING}`, { json: {} }),
    bad: [longId(`/1/trigger/run/${MISSING}`, { json: {} }), () => at(`/1/trigger/run/${MISSING}`, { json: { user_id: LONG } })],
  },
  'GET /1/trigger/history': { takes: USER_OR_APP, valid: () => ({}), bad: [() => ({ query: { limit: -1 } })] },
  'GET /1/trigger/history/attempts': {
    takes: USER_OR_APP, valid: () => ({ query: { event_id: `run_${MISSING}` } }), bad: [() => ({ query: {} }), () => ({ query: { event_id: 'a b' } })],
  },
  'POST /1/trigger/history/redeliver': {
    takes: APP, valid: () => ({ json: { event_id: `run_${MISSING}` } }), bad: [() => ({ json: {} }), () => ({ json: { event_id: `run_${MISSING}`, requested_by: 'a b' } })],
  },
  'GET /1/trigger/state/:id': { takes: APP, valid: () => at(`/1/trigger/state/${MISSING}`), bad: [longId(`/1/trigger/state/${MISSING}`)] },
  'GET /1/trigger/state': { takes: APP, valid: () => ({ query: { user_id: MISSING } }), bad: [() => ({ query: {} })] },
  'GET /1/trigger/timeline': { takes: APP, valid: () => ({ query: { user_id: MISSING } }), bad: [() => ({ query: {} }), () => ({ query: { user_id: MISSING, count: 0 } })] },
  'POST /1/trigger/replay': {
    takes: APP, valid: () => ({ json: { user_id: MISSING, points: [] } }),
    bad: [() => ({ json: { user_id: LONG } }), () => ({ json: { user_id: MISSING, format: 'kml' } })],
  },

  'POST /1/message/send': { takes: USER_OR_APP, valid: () => ({ json: { text: 'hello' } }), bad: [() => ({ json: {} }), () => ({ json: { text: 'x'.repeat(2001) } })] },
  'GET /1/message/list': { takes: USER_OR_APP, valid: () => ({}), bad: [() => ({ query: { offset: -1 } })] },
  // Takes nothing but its credential (and answers a plain GET with a 426).
  'GET /1/stream': { takes: USER, valid: () => ({}), bad: [] },
  // A user that is not there, so the answer is a 404 and not a stream that stays open.
  'GET /1/inspector/events': { takes: APP, valid: () => ({ query: { user_id: MISSING } }), bad: [() => ({ query: { user_id: LONG } })] },

  // Issue 32.
  'POST /1/geonote/create': { takes: USER, valid: () => ({ json: { text: 'n', place_id: MISSING } }), bad: [() => ({ json: {} }), () => ({ json: { text: 'n', radius: -1 } })] },
  'GET /1/geonote/list_set': { takes: USER, valid: () => ({}), bad: [] },
  'GET /1/geonote/list_recent': { takes: USER, valid: () => ({}), bad: [] },
  'GET /1/geonote/info/:id': { takes: USER, valid: () => at(`/1/geonote/info/${MISSING}`), bad: [longId(`/1/geonote/info/${MISSING}`)] },
  'POST /1/link/create': { takes: USER, valid: () => ({ json: { minutes: 5 } }), bad: [() => ({ json: { minutes: 0 } })] },
  'POST /1/trip/create': { takes: USER, valid: () => ({ json: { minutes: 5 } }), bad: [() => ({ json: { minutes: 0 } })] },
  'POST /1/link/expire': { takes: USER, valid: () => ({ json: { token: MISSING } }), bad: [() => ({ json: { token: LONG } })] },
  'POST /1/link/activate': { takes: USER, valid: () => ({ json: { token: MISSING } }), bad: [() => ({ json: { token: LONG } })] },
  'POST /1/link/deactivate': { takes: USER, valid: () => ({ json: { token: MISSING } }), bad: [() => ({ json: { token: LONG } })] },
  'GET /1/link/stats': { takes: USER, valid: () => ({ query: { token: MISSING } }), bad: [() => ({ query: {} })] },
  // The share token in the query is their credential; an access token is optional (a sent one is checked).
  'GET /1/share/last': { exempt: 'the share token is the credential: no access token is needed' },
  'GET /1/share/history': { exempt: 'the share token is the credential: no access token is needed' },
  'GET /1/share/info': { exempt: 'the share token is the credential: no access token is needed' },
  'GET /1/application/list': { takes: APP, valid: () => ({}), bad: [] },
  'GET /1/application/info/:id': { takes: APP, valid: () => at(`/1/application/info/${MISSING}`), bad: [longId(`/1/application/info/${MISSING}`)] },
  'GET /1/application/layers/:id': { takes: APP, valid: () => at(`/1/application/layers/${MISSING}`), bad: [longId(`/1/application/layers/${MISSING}`)] },
  'GET /1/application/usage/:id': { takes: APP, valid: () => at(`/1/application/usage/${MISSING}`), bad: [longId(`/1/application/usage/${MISSING}`)] },
  'GET /1/location/tracking_profile': { takes: USER_OR_APP, valid: () => ({}), bad: [() => ({ query: { user_id: LONG } })] },
  'POST /1/location/tracking_profile': { takes: USER_OR_APP, valid: () => ({ json: { profile: 'off' } }), bad: [() => ({ json: { profile: 'turbo' } })] },
  'POST /1/location/delete_batch/:id': {
    takes: USER_OR_APP, valid: () => at(`/1/location/delete_batch/${'0'.repeat(40)}`, { json: {} }), bad: [() => at('/1/location/delete_batch/nope', { json: {} })],
  },
  'GET /1/layer/nearby': { takes: APP_OR_USER, valid: () => ({ query: { latitude: 1, longitude: 1 } }), bad: [() => ({ query: { latitude: 91, longitude: 1 } })] },
  'POST /1/layer/nearby': { takes: APP_OR_USER, valid: () => ({ json: { latitude: 1, longitude: 1 } }), bad: [() => ({ json: { latitude: 'x', longitude: 1 } })] },
  'GET /1/layer/subscription/:id': { takes: APP_OR_USER, valid: () => at(`/1/layer/subscription/${MISSING}`, { query: { user_id: MISSING } }), bad: [longId(`/1/layer/subscription/${MISSING}`)] },
  'POST /1/layer/subscription/:id': {
    takes: APP_OR_USER, valid: () => at(`/1/layer/subscription/${MISSING}`, { json: { user_id: MISSING } }),
    bad: [longId(`/1/layer/subscription/${MISSING}`, { json: {} }), () => at(`/1/layer/subscription/${MISSING}`, { json: { settings: 'x' } })],
  },
  'GET /1/layer/user_clusters/:id': { takes: APP, valid: () => at(`/1/layer/user_clusters/${MISSING}`), bad: [longId(`/1/layer/user_clusters/${MISSING}`)] },
  'GET /1/place/list_unnamed': { takes: APP_OR_USER, valid: () => ({ query: { limit: 5 } }), bad: [() => ({ query: { limit: 'abc' } })] },
  'GET /1/user/list/:id': { takes: SECRET_OR_APP, valid: () => at(`/1/user/list/${MISSING}`), bad: [longId(`/1/user/list/${MISSING}`)] },
  'POST /1/user/secure_delete/:id': { takes: SECRET_OR_APP, valid: () => at(`/1/user/secure_delete/${MISSING}`, { json: {} }), bad: [longId(`/1/user/secure_delete/${MISSING}`, { json: {} })] },
  'GET /1/account/privacy': { takes: USER, valid: () => ({}), bad: [] },
  'POST /1/account/privacy': { takes: USER, valid: () => ({ json: { public_location: 1 } }), bad: [() => ({ json: { public_location: 'maybe' } })] },
  'GET /1/account/connections': { takes: USER, valid: () => ({}), bad: [] },
  'POST /1/message/broadcast': {
    takes: APP, valid: (f) => ({ json: { layer_id: f.defaultLayer(), latitude: 1, longitude: 1, radius: 10, text: 'hi' } }),
    bad: [() => ({ json: { layer_id: MISSING, latitude: 1, longitude: 1, radius: -1, text: 'hi' } })],
  },
  'POST /1/message/count_broadcast': {
    takes: APP, valid: (f) => ({ json: { layer_id: f.defaultLayer(), latitude: 1, longitude: 1, radius: 10 } }),
    bad: [() => ({ json: { layer_id: MISSING, latitude: 1, radius: 10 } })],
  },
  // The test's application is pre-approved for it (credentials-first.test.ts).
  'GET /1/application/api_hits/:id': { takes: APP, valid: () => at(`/1/application/api_hits/${MISSING}`), bad: [longId(`/1/application/api_hits/${MISSING}`)] },
  'POST /1/account/permanent_token': { takes: USER, valid: () => ({ json: {} }), bad: [] },
  'POST /1/message/device': { takes: USER_OR_APP, valid: () => ({ json: { data: { n: 1 } } }), bad: [() => ({ json: { data: 'x' } })] },

  // groups (reference §4.7): an application or a user token
  'POST /1/group/create': { takes: APP_OR_USER, valid: () => ({ json: { title: 't' } }), bad: [() => ({ json: { visibility: 'secret' } }), () => ({ json: { title: 'x'.repeat(201) } })] },
  'POST /1/group/update/:token': {
    takes: APP_OR_USER, valid: () => at(`/1/group/update/${MISSING}`, { json: { title: 't' } }),
    bad: [longId(`/1/group/update/${MISSING}`, { json: {} }), () => at(`/1/group/update/${MISSING}`, { json: { publish_access: 'sometimes' } })],
  },
  'POST /1/group/delete/:token': { takes: APP_OR_USER, valid: () => at(`/1/group/delete/${MISSING}`, { json: {} }), bad: [longId(`/1/group/delete/${MISSING}`, { json: {} })] },
  'POST /1/group/join/:token': { takes: APP_OR_USER, valid: () => at(`/1/group/join/${MISSING}`, { json: {} }), bad: [() => at(`/1/group/join/${MISSING}`, { json: { user_id: LONG } })] },
  'POST /1/group/leave/:token': { takes: APP_OR_USER, valid: () => at(`/1/group/leave/${MISSING}`, { json: {} }), bad: [() => at(`/1/group/leave/${MISSING}`, { json: { user_id: LONG } })] },
  'POST /1/group/message/:token': {
    takes: APP_OR_USER, valid: () => at(`/1/group/message/${MISSING}`, { json: { score: 1 } }),
    bad: [() => at(`/1/group/message/${MISSING}`, { json: { push: { all: 1 } } }), () => at(`/1/group/message/${MISSING}`, { json: { 'a.b': 1 } })],
  },
  'GET /1/group/list': { takes: APP_OR_USER, valid: () => ({}), bad: [() => ({ query: { limit: -1 } })] },
  'GET /1/group/info/:token': { takes: APP_OR_USER, valid: () => at(`/1/group/info/${MISSING}`), bad: [longId(`/1/group/info/${MISSING}`)] },
  'GET /1/group/members/:token': { takes: APP_OR_USER, valid: () => at(`/1/group/members/${MISSING}`), bad: [longId(`/1/group/members/${MISSING}`)] },
  'GET /1/group/subscriptions': { takes: USER_OR_APP, valid: () => ({}), bad: [() => ({ query: { offset: -1 } })] },
  'GET /1/group/messages/:token': { takes: APP_OR_USER, valid: () => at(`/1/group/messages/${MISSING}`), bad: [() => at(`/1/group/messages/${MISSING}`, { query: { limit: 'abc' } })] },
  'GET /1/group/locations/:token': { takes: APP_OR_USER, valid: () => at(`/1/group/locations/${MISSING}`), bad: [() => at(`/1/group/locations/${MISSING}`, { query: { count: 0 } })] },
  'GET /1/group/last/:token': { takes: APP_OR_USER, valid: () => at(`/1/group/last/${MISSING}`), bad: [longId(`/1/group/last/${MISSING}`)] },

  'POST /admin/app/create': { takes: ADMIN, valid: (f) => ({ json: { name: f.unique() } }), bad: [() => ({ json: { name: ' ' } }), () => ({ json: { name: 'n', owner: 'me' } }), () => ({ json: { name: 'n', redirect_uris: [{}] } })] },
  'GET /admin/app/list': { takes: ADMIN, valid: () => ({}), bad: [] },
  'POST /admin/app/rotate_secret/:id': {
    takes: ADMIN, valid: () => at(`/admin/app/rotate_secret/${MISSING}`, { json: {} }),
    bad: [longId(`/admin/app/rotate_secret/${MISSING}`, { json: {} }), () => at(`/admin/app/rotate_secret/${MISSING}`, { json: { webhook: 'maybe' } })],
  },
  'POST /admin/app/update/:id': {
    takes: ADMIN, valid: () => at(`/admin/app/update/${MISSING}`, { json: { name: 'n' } }),
    bad: [
      () => at(`/admin/app/update/${MISSING}`, { json: { store_history: 'maybe' } }),
      () => at(`/admin/app/update/${MISSING}`, { json: { redirect_uris: [{ uri: 'https://a.example.com/cb' }] } }),
    ],
  },
  'POST /admin/app/delete/:id': { takes: ADMIN, valid: () => at(`/admin/app/delete/${MISSING}`, { json: {} }), bad: [longId(`/admin/app/delete/${MISSING}`, { json: {} })] },
};

// Action methods old clients call with GET when they have no parameters (src/routes/get-or-post.ts):
// their GET takes the same credentials, its fields in the query string.
const asGet = (input: Input): Input => (input.json === undefined ? input : { path: input.path, query: { ...input.query, ...(input.json as object) } });
for (const route of [
  '/1/user/delete/:id', '/1/layer/delete/:id', '/1/layer/subscribe/:id', '/1/layer/unsubscribe/:id',
  '/1/place/delete/:id', '/1/trigger/delete/:id', '/1/trigger/run/:id',
  '/1/group/delete/:token', '/1/group/join/:token', '/1/group/leave/:token', '/1/account/permanent_token',
]) {
  const post = CREDENTIALS[`POST ${route}`];
  if (!post || 'exempt' in post) continue;
  CREDENTIALS[`GET ${route}`] = { takes: post.takes, valid: (f) => asGet(post.valid(f)), bad: post.bad.map((b) => (f: Fixtures) => asGet(b(f))) };
}
