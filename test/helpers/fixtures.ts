// Building blocks for end-to-end tests, all through the public HTTP API.
import { Api } from './api.js';
import { ADMIN_TOKEN } from './server.js';

export interface TestApp {
  application_id: string;
  client_id: string;
  client_secret: string;
  access_token: string;
  webhook_secret: string;
  default_layer_id: string;
}

export async function createApp(api: Api, name = 'test app'): Promise<TestApp> {
  const res = await api.post('/admin/app/create', { bearer: ADMIN_TOKEN, json: { name } });
  if (res.status !== 200) throw new Error(`app/create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as TestApp;
}

export interface TestUser {
  user_id: string;
  access_token: string;
  username: string;
}

export async function createAnonUser(api: Api, app: TestApp, fields: Record<string, unknown> = {}): Promise<TestUser> {
  const res = await api.post('/1/user/create_anon', { json: { client_id: app.client_id, client_secret: app.client_secret, ...fields } });
  if (res.status !== 200) throw new Error(`user/create_anon failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as TestUser;
}

/** The error shape every 4xx must have. */
export function expectErrorShape(body: any, status: number, error?: string) {
  if (typeof body !== 'object' || body === null) throw new Error(`error body is not an object: ${body}`);
  if (body.error_code !== status) throw new Error(`error_code ${body.error_code} != ${status}: ${JSON.stringify(body)}`);
  if (typeof body.error !== 'string' || typeof body.error_description !== 'string') throw new Error(`bad error body ${JSON.stringify(body)}`);
  if (error !== undefined && body.error !== error) throw new Error(`error ${body.error} != ${error}: ${JSON.stringify(body)}`);
}
