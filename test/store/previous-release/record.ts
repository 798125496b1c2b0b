// Makes the previous-release fixture (test/store/previous-release.test.ts): runs the service of the
// checkout it is run in against a new DATA_DIR, fills it through the public API with one of
// everything an operator's data holds, records the answers of the read requests in READS, and
// writes the database as SQL text beside this file. Run it at the release the fixture stands for:
//
//   npx tsx test/store/previous-release/record.ts
//
// The clock is fixed (moved by hand between writes), so the answers are the same on every run of
// the reads; callbacks go to a receiver in this process that takes every one.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../../src/store/sqlite/driver.js';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { Api } from '../../helpers/api.js';
import { ADMIN_TOKEN } from '../../helpers/server.js';
import { READ_AT, READS, START_AT, type Credentials } from './reads.js';

const HERE = path.dirname(new URL(import.meta.url).pathname);

let clock = START_AT;
const step = (ms = 1000) => (clock += ms);

async function main() {
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/cb`;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'geotrigger-previous-'));
  const config = loadConfig({
    DATA_DIR: dataDir, ADMIN_TOKEN, LOG_LEVEL: 'silent', CALLBACK_ALLOW_PRIVATE: 'true', SHARDS: '2', PASSWORD_HASH_COST: '12',
  });
  const app = await buildApp({ config, now: () => clock, logger: false, engine: { inProcess: true }, delivery: { senderThread: false } });
  await app.ready();
  const api = new Api({ inject: (opts) => app.inject(opts) });
  const ok = async (p: Promise<{ status: number; body: any }>, what: string) => {
    const res = await p;
    if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    step();
    return res.body;
  };
  try {
    const creds = await fill(api, ok, callbackUrl);
    // Every callback delivered before the reads, so no answer depends on a retry's timing.
    for (let i = 0; ; i++) {
      const h = await api.get('/1/trigger/history', { token: creds.appA.access_token, query: { limit: 100 } });
      const pending = (h.body.history as Array<{ type: string; delivery?: { status: string } }>).filter((e) => e.type === 'callback' && e.delivery?.status !== 'delivered');
      if (pending.length === 0) break;
      if (i > 200) throw new Error(`callbacks not delivered: ${JSON.stringify(pending)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    clock = READ_AT;
    const answers = [];
    for (const read of READS) {
      const req = read(creds);
      const res = await api.request(req.method ?? 'GET', req.path, req.options);
      answers.push({ request: req, status: res.status, body: res.body });
    }
    await app.close();
    await writeFile(path.join(HERE, 'credentials.json'), `${JSON.stringify(creds, null, 1)}\n`);
    await writeFile(path.join(HERE, 'answers.json'), `${JSON.stringify(answers, null, 1)}\n`);
    await writeFile(path.join(HERE, 'data.sql'), dump(path.join(dataDir, 'geotrigger.sqlite')));
    console.log(`wrote ${answers.length} answers and the database to ${HERE}`);
  } finally {
    receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

type Ok = (p: Promise<{ status: number; body: any }>, what: string) => Promise<any>;

async function fill(api: Api, ok: Ok, callbackUrl: string): Promise<Credentials> {
  const admin = { bearer: ADMIN_TOKEN };
  const appA = await ok(api.post('/admin/app/create', { ...admin, json: { name: 'Previous A', redirect_uris: ['https://a.example/cb'] } }), 'app A');
  await ok(api.post(`/admin/app/update/${appA.application_id}`, { ...admin, json: { store_history: true, permanent_tokens: true } }), 'app A update');
  const appB = await ok(api.post('/admin/app/create', { ...admin, json: { name: 'Previous B' } }), 'app B');
  const client = { client_id: appA.client_id, client_secret: appA.client_secret };
  const A = { token: appA.access_token };

  const ada = await ok(api.post('/1/user/create', { json: { ...client, username: 'Ada', email: 'ada@example.com', password: 'correct horse', name: 'Ada L', timezone: 'Europe/Paris', extra: { team: 'red' } } }), 'ada');
  const bob = await ok(api.post('/1/user/create_anon', { json: { ...client, key: 'device-bob', display_name: 'Bob', extra: { n: 1 } } }), 'bob');
  const cyd = await ok(api.post('/1/user/create_anon', { json: client }), 'cyd');
  await ok(api.post(`/1/user/update/${ada.user_id}`, { ...A, json: { bio: 'counts', extra: { level: 3, team: null } } }), 'ada update');
  await ok(api.post('/1/account/set_apn_token', { token: bob.access_token, json: { token: 'apn-bob-1', mode: 'live' } }).catch(() => ({ status: 200, body: {} })), 'apn');
  await ok(api.post('/1/account/privacy', { token: ada.access_token, json: { public_location: 1, default_share_expiration: 7 } }), 'privacy');
  await ok(api.post('/1/location/tracking_profile', { token: ada.access_token, json: { profile: 'logging' } }), 'tracking');

  const layer = await ok(api.post('/1/layer/create', { ...A, json: { name: 'Parks', key: 'parks', public: 1, latitude: 45.52, longitude: -122.68, radius: 5000, extra: { colour: 'green' } } }), 'layer');
  const privateLayer = await ok(api.post('/1/layer/create', { ...A, json: { name: 'Staff', trigger_rate_limit: 60 } }), 'private layer');
  await ok(api.post(`/1/layer/subscribe/${layer.layer_id}`, { token: ada.access_token, json: {} }), 'subscribe ada');
  await ok(api.post(`/1/layer/subscribe/${layer.layer_id}`, { ...A, json: { user_id: bob.user_id } }), 'subscribe bob');
  await ok(api.post(`/1/layer/subscription/${layer.layer_id}`, { token: ada.access_token, json: { settings: { sound: 'on' } } }), 'settings');

  const park = await ok(api.post('/1/place/create', { ...A, json: { layer_id: layer.layer_id, name: 'Park', key: 'park', latitude: 45.5200, longitude: -122.6800, radius: 150, extra: { a: 1 } } }), 'park');
  const museum = await ok(api.post('/1/place/create', { ...A, json: { layer_id: layer.layer_id, name: 'Museum', latitude: 45.5300, longitude: -122.6700, radius: 120, time_from: '08:00', time_to: '20:00' } }), 'museum');
  await ok(api.post('/1/place/create', { ...A, json: { latitude: 45.54, longitude: -122.66, radius: 80 } }), 'unnamed place');
  await ok(api.post('/1/place/create', { ...A, json: { layer_id: privateLayer.layer_id, name: 'Office', latitude: 45.50, longitude: -122.60, radius: 100, date_from: '2026-01-01T00:00:00Z', date_to: '2027-01-01T00:00:00Z' } }), 'office');

  const welcome = await ok(api.post('/1/trigger/create', { ...A, json: { place_id: park.place_id, type: 'message', text: 'Welcome to the park', key: 'welcome' } }), 'message trigger');
  await ok(api.post('/1/trigger/create', { ...A, json: { layer_id: layer.layer_id, type: 'callback', url: callbackUrl, trigger_on: 'leave', extra: { kind: 'layer' } } }), 'layer callback');
  await ok(api.post('/1/trigger/create', { ...A, json: { place_id: museum.place_id, type: 'callback', url: callbackUrl, one_time: 1 } }), 'museum callback');
  await ok(api.post('/1/trigger/create', { ...A, json: { latitude: 45.51, longitude: -122.69, radius: 90, place_name: 'Inline', type: 'message', text: 'dwelt', trigger_after: 120 } }), 'inline dwell');

  await ok(api.post('/1/geonote/create', { token: ada.access_token, json: { text: 'Look up', latitude: 45.5200, longitude: -122.6800, radius: 60 } }), 'geonote');
  const link = await ok(api.post('/1/link/create', { token: ada.access_token, json: { description: 'walk' } }), 'link');
  const group = await ok(api.post('/1/group/create', { token: ada.access_token, json: { title: 'Walkers', visibility: 'open' } }), 'group');
  await ok(api.post(`/1/group/join/${group.group_token}`, { token: ada.access_token, json: {} }), 'ada joins');
  await ok(api.post(`/1/group/join/${group.group_token}`, { ...A, json: { user_id: bob.user_id } }), 'bob joins');
  await ok(api.post(`/1/group/message/${group.group_token}`, { token: ada.access_token, json: { text: 'on my way', mood: 'good' } }), 'group message');
  await ok(api.post('/1/message/send', { ...A, json: { user_id: cyd.user_id, text: 'hello cyd' } }), 'message');

  // Ada walks into the park (message, geonote) and the museum (callback), then out of the layer's places (leave callbacks).
  const walk: Array<[number, number]> = [[45.5100, -122.7000], [45.5200, -122.6800], [45.5201, -122.6801], [45.5300, -122.6700], [45.5600, -122.6000]];
  for (const [i, [lat, lon]] of walk.entries()) {
    await ok(api.post('/1/location/update', {
      token: ada.access_token,
      json: [{ date: new Date(clock - 500).toISOString(), location: { position: { latitude: lat, longitude: lon, horizontal_accuracy: 10 }, type: 'point' }, raw: { i } }],
    }), `point ${i}`);
  }
  await ok(api.post('/1/location/update', {
    token: bob.access_token,
    json: [{ date: new Date(clock - 500).toISOString(), location: { position: { latitude: 45.5300, longitude: -122.6700, horizontal_accuracy: 5 }, type: 'point' } }],
  }), 'bob point');
  await ok(api.get('/1/location/history', { token: ada.access_token, query: { batch: 'true', count: 2 } }), 'history batch');
  await ok(api.post('/1/account/permanent_token', { token: bob.access_token, json: {} }), 'permanent token');
  return {
    admin: ADMIN_TOKEN,
    appA: { application_id: appA.application_id, client_id: appA.client_id, client_secret: appA.client_secret, access_token: appA.access_token, default_layer_id: appA.default_layer_id },
    appB: { application_id: appB.application_id, access_token: appB.access_token },
    users: { ada: { user_id: ada.user_id, access_token: ada.access_token }, bob: { user_id: bob.user_id, access_token: bob.access_token }, cyd: { user_id: cyd.user_id, access_token: cyd.access_token } },
    layers: { parks: layer.layer_id, staff: privateLayer.layer_id },
    places: { park: park.place_id, museum: museum.place_id },
    triggers: { welcome: welcome.trigger_id },
    link: link.token,
    group: group.group_token,
  };
}

/** The database as SQL: its schema, then every row of every table. */
function dump(file: string): string {
  const db = openDatabase(file, { readonly: true });
  const lines = ['PRAGMA foreign_keys = OFF;', 'BEGIN;'];
  const objects = db.prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index', name").all() as Array<{ type: string; name: string; sql: string }>;
  for (const o of objects) lines.push(`${o.sql};`);
  for (const o of objects.filter((x) => x.type === 'table')) {
    for (const row of db.prepare(`SELECT * FROM ${o.name} ORDER BY rowid`).raw().all() as unknown[][]) {
      lines.push(`INSERT INTO ${o.name} VALUES (${row.map(literal).join(', ')});`);
    }
  }
  db.close();
  lines.push('COMMIT;', '');
  return lines.join('\n');
}

function literal(v: unknown): string {
  if (v === null) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return `'${String(v).replaceAll("'", "''")}'`;
}

await main();
