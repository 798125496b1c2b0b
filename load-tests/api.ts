// The service's public HTTP API as the harness uses it (reference §4): applications through the
// admin API (or client credentials against a deployed service), layers, places, triggers, users,
// subscriptions and the message list. Nothing here knows about the simulation.
import { HttpClient, HttpError } from './http-client.js';

export interface AppCredentials {
  application_id?: string;
  client_id: string;
  client_secret: string;
  /** Application access token. */
  access_token: string;
  webhook_secret?: string;
  default_layer_id?: string;
}

type Body = Record<string, unknown>;
const oauth = (token: string) => ({ authorization: `OAuth ${token}` });

/** A 404 on a route the harness needs means the service does not implement it (yet). */
export class MissingRouteError extends Error {}

function explain(err: unknown, what: string): never {
  if (err instanceof HttpError && err.status === 404 && (err.body as Body | undefined)?.error === 'not_found' && /route|method/i.test(String((err.body as Body).error_description ?? ''))) {
    throw new MissingRouteError(`the service does not implement ${err.method} ${err.path} (needed to ${what}): ${err.message}`);
  }
  throw err;
}

export class ServiceApi {
  constructor(readonly http: HttpClient) {}

  async createApp(adminToken: string, name: string): Promise<AppCredentials> {
    return this.http.call<AppCredentials>('POST', '/admin/app/create', { headers: { authorization: `Bearer ${adminToken}` }, json: { name } });
  }

  /** Application token from client credentials (reference §2.3). */
  async appToken(clientId: string, clientSecret: string): Promise<string> {
    const body = await this.http.call<Body>('POST', '/1/oauth/token', {
      json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
    });
    if (typeof body.access_token !== 'string') throw new Error(`oauth/token gave no access_token: ${JSON.stringify(body)}`);
    return body.access_token;
  }

  /** 409 on an existing key returns the existing object (reference §1 de-duplication). */
  private async create(path: string, token: string, body: Body, what: string): Promise<Body> {
    try {
      return await this.http.call<Body>('POST', path, { headers: oauth(token), json: body }, [409]);
    } catch (err) {
      explain(err, what);
    }
  }

  async createLayer(token: string, body: Body): Promise<string> {
    const res = await this.create('/1/layer/create', token, body, 'create layers');
    return requireId(res, 'layer_id', 'layer/create');
  }

  async createPlace(token: string, body: Body): Promise<string> {
    const res = await this.create('/1/place/create', token, body, 'create places');
    return requireId(res, 'place_id', 'place/create');
  }

  async createTrigger(token: string, body: Body): Promise<{ trigger_id: string; place_id?: string }> {
    const res = await this.create('/1/trigger/create', token, body, 'create triggers');
    const place = res.place_id ?? (res.place as Body | undefined)?.place_id;
    return { trigger_id: requireId(res, 'trigger_id', 'trigger/create'), ...(typeof place === 'string' ? { place_id: place } : {}) };
  }

  async createAnonUser(app: AppCredentials, key: string): Promise<{ user_id: string; access_token: string }> {
    const res = await this.http.call<Body>('POST', '/1/user/create_anon', { json: { client_id: app.client_id, client_secret: app.client_secret, key } });
    return { user_id: requireId(res, 'user_id', 'user/create_anon'), access_token: requireId(res, 'access_token', 'user/create_anon') };
  }

  async setTimezone(userToken: string, timezone: string): Promise<void> {
    await this.http.call('POST', '/1/account/profile', { headers: oauth(userToken), json: { timezone } });
  }

  async subscribe(token: string, layerId: string, userId: string): Promise<void> {
    try {
      await this.http.call('POST', `/1/layer/subscribe/${encodeURIComponent(layerId)}`, { headers: oauth(token), json: { user_id: userId } });
    } catch (err) {
      explain(err, 'subscribe users to layers');
    }
  }

  /** Every message of a user, newest first, following paging.next_offset (bounded). */
  async listMessages(token: string, userId: string, maxPages = 200): Promise<unknown[]> {
    const out: unknown[] = [];
    let offset = 0;
    for (let page = 0; page < maxPages; page++) {
      let body: Body;
      try {
        body = await this.http.call<Body>('GET', '/1/message/list', { headers: oauth(token), query: { user_id: userId, offset, limit: 100 } });
      } catch (err) {
        explain(err, 'read the messages of message triggers');
      }
      const items = (Array.isArray(body.messages) ? body.messages : Array.isArray(body.items) ? body.items : []) as unknown[];
      out.push(...items);
      const next = (body.paging as Body | undefined)?.next_offset;
      if (typeof next !== 'number' || items.length === 0 || next <= offset) break;
      offset = next;
    }
    return out;
  }

  /** The application's default layer, when the service lists layers (used against --url). */
  async defaultLayerId(token: string): Promise<string | undefined> {
    const res = await this.http.request<Body>('GET', '/1/layer/list', { headers: oauth(token) });
    if (res.status !== 200 || !Array.isArray(res.body?.layers)) return undefined;
    const layer = (res.body.layers as Body[]).find((l) => l.type === 'default');
    return typeof layer?.layer_id === 'string' ? layer.layer_id : undefined;
  }
}

function requireId(body: Body, field: string, call: string): string {
  const v = body[field];
  if (typeof v !== 'string' || v === '') throw new Error(`${call} answered without ${field}: ${JSON.stringify(body).slice(0, 300)}`);
  return v;
}
