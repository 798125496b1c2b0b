// message/broadcast, message/count_broadcast and message/device (reference §4.10).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';
import { openStream } from '../helpers/stream.js';
import { until } from '../delivery/helpers.js';

let server: TestService;
let api: Api;
let app: TestApp;
let otherApp: TestApp;
/** Moves the server's clock forward (message/device payloads expire after 30 s). */
let skew = 0;

const PORTLAND = { latitude: 45.5165, longitude: -122.6764 };
const LONDON = { latitude: 51.5007, longitude: -0.1246 };

async function at(user: TestUser, where: { latitude: number; longitude: number }) {
  const res = await api.post('/1/location/update', {
    token: user.access_token,
    json: [{ date: new Date(Date.now() + skew).toISOString(), location: { type: 'point', position: { ...where, horizontal_accuracy: 10 } } }],
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  server = await startApp({ now: () => Date.now() + skew });
  api = server.api;
  app = await createApp(api, 'broadcasts');
  otherApp = await createApp(api, 'other');
});
afterAll(() => server?.close());

describe('message/broadcast and message/count_broadcast', () => {
  let layer: string;
  let near: TestUser;
  let nearWithPush: TestUser;
  let far: TestUser;
  let notSubscribed: TestUser;
  let neverLocated: TestUser;

  beforeAll(async () => {
    layer = (await api.post('/1/layer/create', { token: app.access_token, json: { name: 'Deals' } })).body.layer_id;
    [near, nearWithPush, far, notSubscribed, neverLocated] = await Promise.all([1, 2, 3, 4, 5].map(() => createAnonUser(api, app)));
    for (const u of [near, nearWithPush, far, neverLocated]) {
      expect((await api.post(`/1/layer/subscribe/${layer}`, { token: app.access_token, json: { user_id: u.user_id } })).status).toBe(200);
    }
    await api.post('/1/account/set_gcm_token', { token: nearWithPush.access_token, json: { gcm_token: 'gcm-token-1' } });
    await at(near, PORTLAND);
    await at(nearWithPush, { latitude: PORTLAND.latitude + 0.001, longitude: PORTLAND.longitude });
    await at(far, LONDON);
    await at(notSubscribed, PORTLAND);
  });

  const circle = () => ({ layer_id: layer, ...PORTLAND, radius: 1000, text: 'Half price until 6' });

  it('counts the subscribers whose last location is in the circle, sending nothing', async () => {
    const res = await api.post('/1/message/count_broadcast', { token: app.access_token, json: circle() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'ok', total: 2, push: 1, sms: 0 });
    const inbox = await api.get('/1/message/list', { token: near.access_token });
    expect(inbox.body.messages).toEqual([]);
  });

  it('sends each of them the message: message/list and the live stream, from the layer', async () => {
    const stream = await openStream(server, { authorization: `OAuth ${near.access_token}` });
    const res = await api.post('/1/message/broadcast', { token: app.access_token, json: circle() });
    expect(res.body).toEqual({ result: 'ok', total: 2, push: 1, sms: 0 });
    for (const u of [near, nearWithPush]) {
      const inbox = await api.get('/1/message/list', { token: u.access_token });
      expect(inbox.body.messages).toEqual([expect.objectContaining({ text: 'Half price until 6', layer_id: layer })]);
    }
    for (const u of [far, notSubscribed, neverLocated]) {
      expect((await api.get('/1/message/list', { token: u.access_token })).body.messages).toEqual([]);
    }
    await until(() => stream.frames.length === 1);
    expect(stream.frames[0]).toMatchObject({ type: 'message', message: { text: 'Half price until 6', layer_id: layer } });
    await until(async () => (await api.get('/1/message/list', { token: near.access_token })).body.messages[0].delivered === 1);
    stream.ws.close();
  });

  it("on the application's default layer, reaches every user of the application near the point", async () => {
    const res = await api.post('/1/message/count_broadcast', { token: app.access_token, json: { ...circle(), layer_id: app.default_layer_id } });
    expect(res.body).toMatchObject({ total: 3 });
  });

  it("refuses another application's layer exactly as a missing one, with the reference's 403", async () => {
    const foreign = await api.post('/1/message/broadcast', { token: otherApp.access_token, json: circle() });
    const missing = await api.post('/1/message/broadcast', { token: otherApp.access_token, json: { ...circle(), layer_id: 'Mi55ing' } });
    expect(foreign.body).toEqual({ error_code: 403, error: 'access_denied', error_description: 'Access denied to this layer' });
    expect(missing.body).toEqual(foreign.body);
    expect((await api.get('/1/message/list', { token: near.access_token })).body.messages).toHaveLength(1);
  });

  it('refuses bad input and user tokens', async () => {
    expectErrorShape((await api.post('/1/message/broadcast', { token: app.access_token, json: { ...circle(), radius: 0 } })).body, 400);
    expectErrorShape((await api.post('/1/message/broadcast', { token: app.access_token, json: { ...circle(), latitude: 91 } })).body, 400);
    expectErrorShape((await api.post('/1/message/broadcast', { token: app.access_token, json: { ...circle(), text: undefined } })).body, 400);
    expectErrorShape((await api.post('/1/message/broadcast', { token: app.access_token, json: { ...circle(), text: '   ' } })).body, 400, 'missing_input');
    expectErrorShape((await api.post('/1/message/count_broadcast', { token: app.access_token, json: { layer_id: layer } })).body, 400);
    expectErrorShape((await api.post('/1/message/broadcast', { token: near.access_token, json: circle() })).body, 403, 'access_denied');
  });
});

describe('message/device', () => {
  it("delivers the payload over the user's open stream, not to message/list", async () => {
    const user = await createAnonUser(api, app);
    const stream = await openStream(server, { authorization: `OAuth ${user.access_token}` });
    const res = await api.post('/1/message/device', { token: app.access_token, json: { user_id: user.user_id, layer_id: app.default_layer_id, data: { score: 3, team: 'red' } } });
    expect(res.body).toEqual({ result: 'ok', username: user.username, user_id: user.user_id });
    await until(() => stream.frames.length === 1);
    expect(stream.frames[0]).toMatchObject({ type: 'device', device: { layer_id: app.default_layer_id, data: { score: 3, team: 'red' }, date_ts: expect.any(Number) } });
    expect((await api.get('/1/message/list', { token: user.access_token })).body.messages).toEqual([]);
    stream.ws.close();
  });

  it('keeps it for a device that is offline, and drops it after 30 seconds', async () => {
    const user = await createAnonUser(api, app);
    await api.post('/1/message/device', { token: user.access_token, json: { data: { n: 1 } } });
    skew += 31_000;
    await api.post('/1/message/device', { token: user.access_token, json: { data: { n: 2 } } });
    const stream = await openStream(server, { authorization: `OAuth ${user.access_token}` });
    await until(() => stream.frames.length >= 1);
    expect(stream.frames.map((f) => f.device.data)).toEqual([{ n: 2 }]);
    stream.ws.close();
    // Taken once: the next stream does not get it again.
    const again = await openStream(server, { authorization: `OAuth ${user.access_token}` });
    await api.post('/1/message/device', { token: user.access_token, json: { data: { n: 3 } } });
    await until(() => again.frames.length >= 1);
    expect(again.frames.map((f) => f.device.data)).toEqual([{ n: 3 }]);
    again.ws.close();
  });

  it("refuses another application's user or layer as missing ones, and bad input", async () => {
    const user = await createAnonUser(api, app);
    const foreign = await api.post('/1/message/device', { token: otherApp.access_token, json: { user_id: user.user_id, data: {} } });
    const missing = await api.post('/1/message/device', { token: otherApp.access_token, json: { user_id: 'Mi55ing', data: {} } });
    expectErrorShape(foreign.body, 404, 'not_found');
    expect(foreign.body).toEqual(missing.body);
    expectErrorShape((await api.post('/1/message/device', { token: user.access_token, json: { layer_id: app.default_layer_id.replace(/^./, (c) => (c === '_' ? '-' : '_')), data: {} } })).body, 404);
    expectErrorShape((await api.post('/1/message/device', { token: user.access_token, json: { data: 'text' } })).body, 400);
    expectErrorShape((await api.post('/1/message/device', { token: user.access_token, json: {} })).body, 400);
  });
});
