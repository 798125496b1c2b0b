// A stand-in for the service, for the harness's own tests only: just enough of the public API
// (admin app, oauth, layers, places, triggers, users, subscriptions, location/update, message/list)
// for a whole run, firing events with the oracle itself, live, from the points it receives and a
// 100 ms clock for dwell deadlines. It proves the plumbing end to end (setup, load, points rebuilt
// exactly, signatures, delivery, collection, matching, report) before the real engine exists, and
// its faults prove that the report catches missed, duplicated, unexpected and wrong events. It says
// nothing about the real engine; test/load/ci-load.test.ts runs the real service.
import { randomBytes, randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { UserOracle } from './oracle/simulate.js';
import {
  assembleWorld, defaultLayers, type LayerRole, type PlaceSpec, type TriggerSpec, type UserSpec, type Window, type World, type ZoneParams,
} from './world.js';

export interface FakeFaults {
  /** Do not deliver the first N events. */
  drop?: number;
  /** Deliver the first event twice, under two event ids. */
  duplicate?: boolean;
  /** Deliver the first callback twice under the same event id (a retry). */
  retry?: boolean;
  /** Send one callback no rule calls for. */
  spurious?: boolean;
}

export interface FakeService {
  url: string;
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
  delivered: number;
  close(): Promise<void>;
}

type Body = Record<string, any>;
const ROLES: LayerRole[] = ['bulk', 'rate', 'sub', 'multi'];

/** `dwellToleranceMs`: as the service's DWELL_TOLERANCE_MS (the harness's --dwell-tolerance-ms must match). */
export async function startFakeService(zones: ZoneParams, faults: FakeFaults = {}, dwellToleranceMs = 0): Promise<FakeService> {
  const app = Fastify({ logger: false, bodyLimit: 2 * 1024 * 1024 });
  const clientId = randomUUID();
  const clientSecret = randomBytes(16).toString('hex');
  const appToken = randomBytes(16).toString('hex');
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  const signer = new Webhook(webhookSecret);
  const layers = defaultLayers('fake', 0);
  layers.default.id = 'L-default';
  const layerById = new Map<string, LayerRole>([['L-default', 'default']]);
  const places: PlaceSpec[] = [];
  const triggers: Array<TriggerSpec & { url?: string }> = [];
  const users: UserSpec[] = [];
  const byToken = new Map<string, UserSpec>();
  const messages = new Map<string, Body[]>();
  let world: World | undefined;
  const oracles = new Map<number, UserOracle>();
  const sent = new Map<number, number>();
  let delivered = 0;
  let seq = 0;
  const state = { delivered: 0 };

  const deny = (reply: FastifyReply, status: number, error: string) => reply.code(status).send({ error_code: status, error, error_description: error });
  const appAuth = (req: FastifyRequest) => req.headers.authorization === `OAuth ${appToken}`;
  const windowOf = (b: Body): Window | undefined => {
    const w: Window = {};
    if (b.date_from) w.dateFrom = Date.parse(b.date_from);
    if (b.date_to) w.dateTo = Date.parse(b.date_to);
    if (b.time_from) w.timeFrom = b.time_from;
    if (b.time_to) w.timeTo = b.time_to;
    return Object.keys(w).length ? w : undefined;
  };
  const addPlace = (b: Body, role: LayerRole): PlaceSpec => {
    const p: PlaceSpec = {
      index: places.length, kind: 'enter', key: b.key ?? b.place_key, name: b.name ?? b.place_name ?? '', lat: b.latitude, lng: b.longitude,
      radius: b.radius, layer: role, id: `P${places.length}`, ...(windowOf(b) ? { resolved: windowOf(b) } : {}),
    };
    places.push(p);
    return p;
  };

  app.get('/health', async () => ({ status: 'ok' }));
  app.post('/1/oauth/token', async (req, reply) => {
    const b = req.body as Body;
    return b.client_id === clientId && b.client_secret === clientSecret ? { access_token: appToken } : deny(reply, 401, 'invalid_client');
  });
  app.get('/1/layer/list', async () => ({ layers: [{ layer_id: 'L-default', type: 'default' }] }));
  app.post('/1/layer/create', async (req, reply) => {
    if (!appAuth(req)) return deny(reply, 401, 'invalid_token');
    const b = req.body as Body;
    const role = ROLES.find((r) => String(b.key).endsWith(`-layer-${r}`))!;
    layers[role].id = `L-${role}`;
    layers[role].rateLimitS = Number(b.trigger_rate_limit ?? 0);
    layerById.set(`L-${role}`, role);
    return { layer_id: `L-${role}` };
  });
  app.post('/1/place/create', async (req, reply) => {
    if (!appAuth(req)) return deny(reply, 401, 'invalid_token');
    const b = req.body as Body;
    return { place_id: addPlace(b, layerById.get(b.layer_id ?? 'L-default')!).id };
  });
  app.post('/1/trigger/create', async (req, reply) => {
    if (!appAuth(req)) return deny(reply, 401, 'invalid_token');
    const b = req.body as Body;
    const index = triggers.length;
    const t: TriggerSpec & { url?: string } = {
      index, label: b.key, key: b.key, type: b.type, on: b.trigger_on, afterS: Number(b.trigger_after ?? 0), oneTime: Number(b.one_time) === 1,
      id: `T${index}`, ...(b.url ? { url: b.url, path: new URL(b.url).pathname } : {}), ...(windowOf(b) ? { resolved: windowOf(b) } : {}),
    };
    if (b.layer_id) t.layer = layerById.get(b.layer_id);
    else if (b.place_id) t.place = Number(String(b.place_id).slice(1));
    else t.place = addPlace(b, 'default').index;
    triggers.push(t);
    return { trigger_id: t.id, ...(t.place !== undefined ? { place_id: places[t.place].id } : {}) };
  });
  app.post('/1/user/create_anon', async (req) => {
    const u: UserSpec = { index: users.length, key: (req.body as Body).key, timezone: 'UTC', layers: ['default'], quiet: false, late: false, jitter: false, id: `U${users.length}`, token: randomBytes(12).toString('hex') };
    users.push(u);
    byToken.set(u.token!, u);
    return { user_id: u.id, access_token: u.token };
  });
  const userOf = (req: FastifyRequest) => byToken.get(String(req.headers.authorization ?? '').replace(/^OAuth /, ''));
  app.post('/1/account/profile', async (req, reply) => {
    const u = userOf(req);
    if (!u) return deny(reply, 401, 'invalid_token');
    u.timezone = (req.body as Body).timezone;
    return { result: 'ok' };
  });
  app.post('/1/layer/subscribe/:id', async (req, reply) => {
    if (!appAuth(req)) return deny(reply, 401, 'invalid_token');
    const u = users[Number(String((req.body as Body).user_id).slice(1))];
    u.layers.push(layerById.get((req.params as Body).id)!);
    return { subscribed: '1' };
  });

  const deliver = async (u: UserSpec, e: UserOracle['expected'][number], eventId: string, override: Body = {}) => {
    const w = world!;
    const t = w.triggers[e.trigger] as TriggerSpec & { url?: string };
    const p = w.places[e.place];
    if (t.type === 'message') {
      const list = messages.get(u.id!) ?? [];
      list.unshift({ message_id: eventId, type: 'message', trigger_id: t.id, place_id: p.id, date: new Date(e.tMin).toISOString(), date_ts: Math.floor(e.tMin / 1000) });
      messages.set(u.id!, list);
      return;
    }
    const body = JSON.stringify({
      event_id: eventId, triggered_on: t.on, triggered_delay: String(t.on === 'enter' ? t.afterS : 0),
      date: new Date(e.tMin).toISOString(), date_ts: Math.floor(e.tMin / 1000),
      user: { user_id: u.id }, trigger: { trigger_id: t.id, type: t.type, trigger_on: t.on },
      place: { place_id: p.id, latitude: p.lat, longitude: p.lng, radius: p.radius }, layer: { layer_id: w.layers[p.layer].id },
      ...(e.lat !== undefined ? { location: { location: { type: 'point', position: { latitude: e.lat, longitude: e.lng } } } } : {}),
      ...override,
    });
    const now = new Date();
    await fetch(t.url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': eventId, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signer.sign(eventId, now, body) },
      body,
    }).then((r) => r.arrayBuffer(), () => undefined);
  };

  const flush = (u: UserSpec) => {
    const o = oracles.get(u.index)!;
    for (let i = sent.get(u.index) ?? 0; i < o.expected.length; i++) {
      const e = o.expected[i];
      sent.set(u.index, i + 1);
      const n = delivered++;
      state.delivered = delivered;
      if (faults.drop && n < faults.drop) continue;
      void deliver(u, e, `evt_${n}`);
      // The faults concern the first event actually delivered.
      const first = n === (faults.drop ?? 0);
      if (first && faults.duplicate) void deliver(u, e, `evt_${n}_again`);
      if (first && faults.retry) void deliver(u, e, `evt_${n}`);
      if (first && faults.spurious) {
        const other = world!.triggers.find((t) => t.type === 'callback' && t.index !== e.trigger)!;
        void deliver(u, { ...e, trigger: other.index, place: world!.geofences[world!.byTrigger[other.index][0]].place }, `evt_spurious`);
      }
    }
  };

  const freeze = () => {
    if (world) return world;
    const o = { seed: 0, users: users.length, geofences: 0, dwellS: 0, rateLimitS: 0, durationS: 0, quietShare: 0, lateShare: 0, jitterShare: 0, spacingM: 0, runId: 'fake' };
    world = assembleWorld(o, layers, places, triggers, users, { lat: places[0]?.lat ?? 0, lng: places[0]?.lng ?? 0 });
    for (const u of users) oracles.set(u.index, new UserOracle(world, u, { zones, inFlightSlackMs: 5, dwellToleranceMs }));
    return world;
  };

  app.post('/1/location/update', async (req, reply) => {
    const u = userOf(req);
    if (!u) return deny(reply, 401, 'invalid_token');
    if (!Array.isArray(req.body)) return deny(reply, 400, 'invalid_input');
    freeze();
    const now = Date.now();
    const req_ = seq++;
    const o = oracles.get(u.index)!;
    for (const p of req.body as Body[]) {
      const pos = p.location.position;
      o.tick(Math.min(now, Date.parse(p.date)));
      o.apply({ t: Date.parse(p.date), lat: pos.latitude, lng: pos.longitude, acc: pos.horizontal_accuracy, sentAt: now, ackAt: now, req: req_ });
    }
    flush(u);
    return { response: 'ok' };
  });
  app.get('/1/message/list', async (req, reply) => {
    if (!appAuth(req)) return deny(reply, 401, 'invalid_token');
    const q = req.query as Body;
    const all = messages.get(q.user_id) ?? [];
    const offset = Number(q.offset ?? 0);
    const limit = Number(q.limit ?? 25);
    const page = all.slice(offset, offset + limit);
    return { messages: page, paging: { limit, total: all.length, ...(offset + limit < all.length ? { next_offset: offset + limit } : {}) } };
  });

  const clock = setInterval(() => {
    if (!world) return;
    const now = Date.now();
    for (const u of users) {
      oracles.get(u.index)!.tick(now);
      flush(u);
    }
  }, 100);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`, clientId, clientSecret, webhookSecret,
    get delivered() {
      return state.delivered;
    },
    async close() {
      clearInterval(clock);
      await app.close();
    },
  };
}
