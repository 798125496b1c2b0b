// One test's world, built and observed through the public HTTP API only: its own application (so
// tests in one file can run at the same time on one server), its users, places, layers and
// triggers, the phone's location updates, and what the engine did (trigger/history, message/list).
import { Api, type Injector } from '../../helpers/api.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../../helpers/fixtures.js';
import { ADMIN_TOKEN } from '../../helpers/server.js';
import type { CallbackReceiver, Endpoint } from './receiver.js';
import type { LatLng, UpdatePoint } from './track.js';
import { waitFor } from './wait.js';

/** A trigger/history entry, the fields the tests read. */
export interface Firing {
  event_id: string;
  date_ts: number;
  user_id: string;
  type: 'callback' | 'message';
  triggered_on: 'enter' | 'leave';
  triggered_delay: string;
  delivery: { status: string; attempts: number };
  trigger: { trigger_id: string };
  place: { place_id: string };
  layer: { layer_id: string };
}

export class World {
  private constructor(readonly api: Api, readonly app: TestApp, private readonly receiver?: CallbackReceiver) {}

  /** On a server's base URL, or an app to inject into (test/helpers/server.ts startApp). */
  static async create(baseUrl: string | Injector, receiver?: CallbackReceiver, name = 'engine e2e'): Promise<World> {
    const api = new Api(baseUrl);
    return new World(api, await createApp(api, name), receiver);
  }

  get token(): string {
    return this.app.access_token;
  }

  /** A callback endpoint that verifies with this application's webhook secret. */
  endpoint(): Endpoint {
    if (!this.receiver) throw new Error('this world has no receiver');
    return this.receiver.endpoint(this.app.webhook_secret);
  }

  user(fields: Record<string, unknown> = {}): Promise<TestUser> {
    return createAnonUser(this.api, this.app, fields);
  }

  /** trigger/create; `at` and `radius` make an inline place. */
  async trigger(body: Record<string, unknown>, at?: LatLng & { radius: number }): Promise<{ trigger_id: string; place_id?: string }> {
    const json = at ? { latitude: at.latitude, longitude: at.longitude, radius: at.radius, ...body } : body;
    return this.ok('/1/trigger/create', json);
  }

  async place(at: LatLng & { radius: number }, body: Record<string, unknown> = {}): Promise<string> {
    return (await this.ok('/1/place/create', { ...at, ...body })).place_id as string;
  }

  async layer(body: Record<string, unknown> = {}): Promise<string> {
    return (await this.ok('/1/layer/create', { name: `layer ${Math.random().toString(36).slice(2)}`, ...body })).layer_id as string;
  }

  subscribe(layerId: string, userId: string) {
    return this.ok(`/1/layer/subscribe/${layerId}`, { user_id: userId });
  }

  unsubscribe(layerId: string, userId: string) {
    return this.ok(`/1/layer/unsubscribe/${layerId}`, { user_id: userId });
  }

  /** A POST with the application token that must answer 200. */
  async ok(path: string, json: Record<string, unknown> = {}): Promise<any> {
    const res = await this.api.post(path, { token: this.token, json });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** The application keeps location history (an admin setting, off by default). */
  async storeHistory(): Promise<void> {
    const res = await this.api.post(`/admin/app/update/${this.app.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: true } });
    if (res.status !== 200) throw new Error(`admin/app/update: ${res.status} ${JSON.stringify(res.body)}`);
  }

  /** location/update with the user's token; must be accepted. */
  async send(user: TestUser, points: UpdatePoint[]): Promise<void> {
    if (points.length === 0) return;
    const res = await this.api.post('/1/location/update', { token: user.access_token, json: points });
    if (res.status !== 200 || res.body?.response !== 'ok') throw new Error(`location/update: ${res.status} ${JSON.stringify(res.body)}`);
  }

  /** Every firing for the user, oldest first (trigger/history lists newest first). */
  async firings(userId: string): Promise<Firing[]> {
    const res = await this.api.get('/1/trigger/history', { token: this.token, query: { user_id: userId, limit: 100 } });
    if (res.status !== 200) throw new Error(`trigger/history: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body.history as Firing[]).slice().sort((a, b) => a.date_ts - b.date_ts || a.event_id.localeCompare(b.event_id));
  }

  /** Polls trigger/history until the user has at least `n` firings. */
  async waitFirings(userId: string, n: number, timeoutMs = 20_000): Promise<Firing[]> {
    return waitFor(`${n} firing(s) for ${userId}`, async () => {
      const f = await this.firings(userId);
      return f.length >= n && f;
    }, { timeoutMs });
  }

  /** The user's messages (message/list), as the phone reads them. */
  async messages(user: TestUser): Promise<Array<{ text: string; trigger_id?: string; place_id?: string }>> {
    const res = await this.api.get('/1/message/list', { token: user.access_token, query: { limit: 100 } });
    if (res.status !== 200) throw new Error(`message/list: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.messages;
  }
}

/** `[triggered_on, trigger_id, place_id, date_ts]` per firing: a compact, order-preserving summary. */
export function summary(firings: Firing[]): Array<[string, string, string, number]> {
  return firings.map((f) => [f.triggered_on, f.trigger.trigger_id, f.place.place_id, f.date_ts]);
}

export const seconds = (ms: number) => Math.floor(ms / 1000);
