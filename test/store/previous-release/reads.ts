// The read requests of the previous-release fixture (record.ts writes their answers), and the
// clock both runs read at.
import type { RequestOptions } from '../../helpers/api.js';

/** The recording's clock at its first write, and while the reads are made. */
export const START_AT = Date.UTC(2026, 2, 2, 12, 0, 0);
export const READ_AT = Date.UTC(2026, 2, 2, 13, 0, 0);

export interface Credentials {
  admin: string;
  appA: { application_id: string; client_id: string; client_secret: string; access_token: string; default_layer_id: string };
  appB: { application_id: string; access_token: string };
  users: Record<'ada' | 'bob' | 'cyd', { user_id: string; access_token: string }>;
  layers: { parks: string; staff: string };
  places: { park: string; museum: string };
  triggers: { welcome: string };
  link: string;
  group: string;
}

export interface Read {
  method?: 'GET' | 'POST';
  path: string;
  options: RequestOptions;
}

const app = (c: Credentials) => ({ token: c.appA.access_token });
const ada = (c: Credentials) => ({ token: c.users.ada.access_token });

export const READS: Array<(c: Credentials) => Read> = [
  (c) => ({ path: '/admin/app/list', options: { bearer: c.admin } }),
  (c) => ({ path: `/1/application/info/${c.appA.application_id}`, options: app(c) }),
  (c) => ({ path: `/1/application/layers/${c.appA.application_id}`, options: app(c) }),
  (c) => ({ path: `/1/application/usage/${c.appA.application_id}`, options: app(c) }),
  (c) => ({ path: '/1/user/list', options: app(c) }),
  (c) => ({ path: '/1/user/list', options: { ...app(c), query: { offset: 1, limit: 1 } } }),
  (c) => ({ path: `/1/user/info/${c.users.ada.user_id}`, options: app(c) }),
  (c) => ({ path: `/1/user/info/${c.users.bob.user_id}`, options: app(c) }),
  (c) => ({ path: `/1/user/info/${c.users.ada.user_id}`, options: { token: c.appB.access_token } }),
  (c) => ({ path: '/1/account/profile', options: ada(c) }),
  (c) => ({ path: '/1/account/privacy', options: ada(c) }),
  (c) => ({ method: 'POST', path: '/1/account/check_username', options: { ...ada(c), json: { desired_username: 'ADA' } } }),
  (c) => ({ path: '/1/location/tracking_profile', options: ada(c) }),
  (c) => ({ path: '/1/layer/list', options: app(c) }),
  (c) => ({ path: '/1/layer/list', options: { token: c.users.cyd.access_token } }),
  (c) => ({ path: `/1/layer/info/${c.layers.parks}`, options: { ...app(c), query: { include_places: 1 } } }),
  (c) => ({ path: '/1/layer/subscriptions', options: ada(c) }),
  (c) => ({ path: `/1/layer/subscription/${c.layers.parks}`, options: ada(c) }),
  (c) => ({ path: '/1/layer/nearby', options: { ...app(c), query: { latitude: 45.521, longitude: -122.681 } } }),
  (c) => ({ path: `/1/layer/users/${c.layers.parks}`, options: app(c) }),
  (c) => ({ path: `/1/layer/user_clusters/${c.appA.default_layer_id}`, options: app(c) }),
  (c) => ({ path: '/1/place/list', options: { ...app(c), query: { layer_id: c.layers.parks } } }),
  (c) => ({ path: '/1/place/list', options: { ...app(c), query: { layer_id: c.layers.parks, sort: 'name' } } }),
  (c) => ({ path: '/1/place/list', options: { ...app(c), query: { include_unnamed: 1 } } }),
  (c) => ({ path: '/1/place/list_unnamed', options: app(c) }),
  (c) => ({ path: `/1/place/info/${c.places.park}`, options: app(c) }),
  (c) => ({ path: `/1/place/info/${c.places.park}`, options: { token: c.appB.access_token } }),
  (c) => ({ path: '/1/place/nearby', options: { ...app(c), query: { layer_id: c.layers.parks, latitude: 45.52, longitude: -122.68, distance: 5000 } } }),
  (c) => ({ path: '/1/trigger/list', options: { ...app(c), query: { layer_id: c.layers.parks } } }),
  (c) => ({ path: '/1/trigger/list', options: { ...app(c), query: { place_id: c.places.park } } }),
  (c) => ({ path: `/1/trigger/info/${c.triggers.welcome}`, options: app(c) }),
  (c) => ({ path: '/1/trigger/history', options: app(c) }),
  (c) => ({ path: '/1/trigger/history', options: { ...app(c), query: { user_id: c.users.ada.user_id, include_gated: 1 } } }),
  (c) => ({ path: '/1/trigger/state', options: { ...app(c), query: { user_id: c.users.ada.user_id } } }),
  (c) => ({ path: '/1/trigger/timeline', options: { ...app(c), query: { user_id: c.users.ada.user_id } } }),
  (c) => ({ path: '/1/geonote/list_set', options: ada(c) }),
  (c) => ({ path: '/1/geonote/list_recent', options: ada(c) }),
  (c) => ({ path: '/1/link/stats', options: { ...ada(c), query: { token: c.link } } }),
  (c) => ({ path: '/1/share/last', options: { query: { geoloqi_token: c.link } } }),
  (c) => ({ path: '/1/share/info', options: { query: { geoloqi_token: c.link } } }),
  (c) => ({ path: `/1/group/info/${c.group}`, options: ada(c) }),
  (c) => ({ path: `/1/group/members/${c.group}`, options: app(c) }),
  (c) => ({ path: `/1/group/messages/${c.group}`, options: app(c) }),
  (c) => ({ path: '/1/group/list', options: app(c) }),
  (c) => ({ path: '/1/group/subscriptions', options: { ...app(c), query: { user_id: c.users.bob.user_id } } }),
  (c) => ({ path: `/1/group/last/${c.group}`, options: app(c) }),
  (c) => ({ path: '/1/message/list', options: { token: c.users.cyd.access_token } }),
  (c) => ({ path: '/1/message/list', options: ada(c) }),
  (c) => ({ path: '/1/location/last', options: ada(c) }),
  (c) => ({ path: '/1/location/history', options: { ...ada(c), query: { count: 10 } } }),
  (c) => ({ path: '/1/location/history', options: { token: c.users.bob.access_token } }),
  (c) => ({ method: 'POST', path: '/1/oauth/token', options: { form: { grant_type: 'password', client_id: c.appA.client_id, username: 'ada@example.com', password: 'wrong' } } }),
];
