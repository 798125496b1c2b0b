// user/list's search (`q`: an id, a username's start, part of a name) and its list by recent
// activity (`sort=recent`): a bounded page of the application's own users, each with when their
// last point was taken; another application's users are never found; bad parameters are a 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

const at = (s: number) => ({ date: s, location: { position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 } } });

describe('user/list: find a user', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;
  let other: TestApp;
  let ada: TestUser;
  let bob: TestUser;
  let quiet: TestUser;
  let stranger: TestUser;
  const t0 = Math.floor(Date.now() / 1000) - 3600;
  const ids = (body: { users: Array<{ user_id: string }> }) => body.users.map((u) => u.user_id);
  const list = (query: Record<string, string | number>, token = app.access_token) => api.get('/1/user/list', { token, query });

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
    other = await createApp(api, 'other');
    ada = await createAnonUser(api, app, { name: 'Ada Lovelace' });
    bob = await createAnonUser(api, app, { display_name: 'Bob the Courier' });
    quiet = await createAnonUser(api, app);
    stranger = await createAnonUser(api, other, { name: 'Ada Stranger' });
    // Bob's last point is newer than Ada's; quiet never posted one; the stranger's is newest of all.
    for (const [user, s] of [[ada, t0], [bob, t0 + 600], [stranger, t0 + 1200]] as const) {
      const res = await api.post('/1/location/update', { token: user.access_token, json: [at(s)] });
      expect(res.status).toBe(200);
    }
  });
  afterAll(() => server?.close());

  it('q matches part of a name or display name in any case, the start of a username, or an id; never another application\'s user', async () => {
    const byName = await list({ q: 'lovel' });
    expect(byName.status).toBe(200);
    expect(ids(byName.body)).toEqual([ada.user_id]);
    expect(ids((await list({ q: 'COURIER' })).body)).toEqual([bob.user_id]);
    expect(ids((await list({ q: quiet.user_id })).body)).toEqual([quiet.user_id]);
    // Anonymous usernames start with "_" and a random part: the start of one finds it.
    const username = (await api.get(`/1/user/info/${quiet.user_id}`, { token: app.access_token })).body.username as string;
    expect(ids((await list({ q: username.slice(0, 8).toUpperCase() })).body)).toContain(quiet.user_id);
    // "Ada" is also the stranger's name, in another application.
    expect(ids((await list({ q: 'ada' })).body)).toEqual([ada.user_id]);
    expect(ids((await list({ q: stranger.user_id })).body)).toEqual([]);
    // Characters of a pattern are plain text.
    expect(ids((await list({ q: '.*' })).body)).toEqual([]);
  });

  it('each found user says when their last point was taken, or null', async () => {
    const res = await list({ q: 'o' });
    const byId = new Map(res.body.users.map((u: { user_id: string; last_location: unknown }) => [u.user_id, u.last_location]));
    expect(byId.get(ada.user_id)).toEqual({ date: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), date_ts: t0 });
    expect(byId.get(bob.user_id)).toEqual({ date: expect.any(String), date_ts: t0 + 600 });
    expect((await list({ q: quiet.user_id })).body.users[0].last_location).toBeNull();
  });

  it('sort=recent lists the users with points, newest first, paged', async () => {
    const res = await list({ sort: 'recent' });
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([bob.user_id, ada.user_id]);
    expect(res.body.users[0].last_location.date_ts).toBe(t0 + 600);
    expect(res.body.paging).toEqual({ limit: 25, total: 2 });
    const first = await list({ sort: 'recent', limit: 1 });
    expect(ids(first.body)).toEqual([bob.user_id]);
    expect(first.body.paging).toEqual({ limit: 1, total: 2, next_offset: 1 });
    expect(ids((await list({ sort: 'recent', limit: 1, offset: 1 })).body)).toEqual([ada.user_id]);
    // Another application sees its own user only.
    expect(ids((await list({ sort: 'recent' }, other.access_token)).body)).toEqual([stranger.user_id]);
  });

  it('pages of a search hold at most 100 users', async () => {
    expect((await list({ q: 'a', limit: 500 })).body.paging.limit).toBe(100);
    expect((await list({ sort: 'recent', limit: 0 })).body.paging.limit).toBe(100);
  });

  it('without q or sort, answers as the reference does', async () => {
    const res = await list({});
    expect(ids(res.body)).toEqual([ada.user_id, bob.user_id, quiet.user_id]);
    expect(res.body.users[0]).not.toHaveProperty('last_location');
  });

  it('refuses bad parameters with a 400, and a user token with a 403', async () => {
    expectErrorShape((await list({ q: '' })).body, 400);
    expectErrorShape((await list({ q: 'x'.repeat(101) })).body, 400);
    expectErrorShape((await list({ sort: 'name' })).body, 400);
    expectErrorShape((await list({ q: 'ada', sort: 'recent' })).body, 400, 'invalid_request');
    expect((await list({ q: 'ada' }, ada.access_token)).status).toBe(403);
  });
});
