// location/update's answer carries the tracking profile once one is set (reference §6.11: the
// Android SDK switches to the `profile` it reads there); until then it is the reference's own.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAnonUser, createApp, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let app: TestApp;

beforeAll(async () => {
  server = await startApp();
  app = await createApp(server.api);
});
afterAll(() => server?.close());

it('answers {"response":"ok"} until a profile is set, then names the profile', async () => {
  const { api } = server;
  const user = await createAnonUser(api, app);
  const update = () => api.post('/1/location/update', {
    token: user.access_token,
    json: [{ date: new Date().toISOString(), location: { type: 'point', position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 } } }],
  });
  expect((await update()).body).toEqual({ response: 'ok' });
  await api.post('/1/location/tracking_profile', { token: app.access_token, json: { user_id: user.user_id, profile: 'realtime' } });
  expect((await update()).body).toEqual({ response: 'ok', profile: 'realtime' });
});
