// /1/group/* (reference §4.7) through the public API: creating and changing groups, who may see,
// join and post to them, messages reaching the group and every member's inbox, and the members'
// locations (group/locations, the undocumented group/last MapAttack reads).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'groups');
  [alice, bob, carol] = [await createAnonUser(api, app), await createAnonUser(api, app), await createAnonUser(api, app)];
});
afterAll(async () => {
  await server?.close();
});

const asApp = () => ({ token: app.access_token });
const as = (u: TestUser) => ({ token: u.access_token });

async function newGroup(opts: { token: string }, json: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post('/1/group/create', { ...opts, json });
  expect(res.status).toBe(200);
  expect(Object.keys(res.body)).toEqual(['group_token']);
  return res.body.group_token;
}

const point = (lat: number, lng: number, date: string) => ({ date, location: { type: 'point', position: { latitude: lat, longitude: lng, horizontal_accuracy: 5 } } });

describe('group/create, info, update, list, delete', () => {
  it('creates a group and shows it as the reference does', async () => {
    const token = await newGroup(asApp(), { title: 'Game 1', description: 'Portland', visibility: 'open', publish_access: 'open' });
    expect(token).toMatch(/^[A-Za-z0-9_-]{12}$/);
    const info = await api.get(`/1/group/info/${token}`, asApp());
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ group_token: token, title: 'Game 1', description: 'Portland', visibility: 'open', publish_access: 'open', active: 1 });
    expect(info.body.date_created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
  });

  it('updates (returning the info) and refuses values the reference does not name', async () => {
    const token = await newGroup(asApp(), { title: 'Before' });
    const res = await api.post(`/1/group/update/${token}`, { ...asApp(), json: { title: 'After', visibility: 'invite' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ group_token: token, title: 'After', visibility: 'invite' });
    const bad = await api.post(`/1/group/update/${token}`, { ...asApp(), json: { visibility: 'secret' } });
    expect(bad.status).toBe(400);
    expectErrorShape(bad.body, 400);
  });

  it('lists the groups a user created, and all of them for the application', async () => {
    const mine = await newGroup(as(carol), { title: 'Carol\'s' });
    const listed = await api.get('/1/group/list', as(carol));
    expect(listed.body.groups.map((g: { group_token: string }) => g.group_token)).toEqual([mine]);
    const all = await api.get('/1/group/list', { ...asApp(), query: { limit: 0 } });
    expect(all.body.groups.map((g: { group_token: string }) => g.group_token)).toContain(mine);
  });

  it('lets only the application or the creator change or delete a group', async () => {
    const token = await newGroup(as(alice), { title: 'Alice\'s' });
    const byBob = await api.post(`/1/group/update/${token}`, { ...as(bob), json: { title: 'Bob was here' } });
    expect(byBob.status).toBe(403);
    expectErrorShape(byBob.body, 403, 'access_denied');
    expect((await api.post(`/1/group/delete/${token}`, as(bob))).status).toBe(403);
    expect((await api.post(`/1/group/update/${token}`, { ...as(alice), json: { title: 'Renamed' } })).body.title).toBe('Renamed');
    const del = await api.post(`/1/group/delete/${token}`, as(alice));
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ result: 'ok' });
    const gone = await api.get(`/1/group/info/${token}`, asApp());
    expect(gone.status).toBe(404);
    expectErrorShape(gone.body, 404, 'not_found');
  });

  it('answers a missing group with 404 on every method', async () => {
    for (const [method, path] of [
      ['GET', 'info'], ['GET', 'members'], ['GET', 'messages'], ['GET', 'locations'], ['GET', 'last'],
      ['POST', 'join'], ['POST', 'leave'], ['POST', 'delete'], ['POST', 'update'],
    ] as const) {
      const res = await api.request(method, `/1/group/${path}/NoSuchGroup1`, { ...as(alice), ...(method === 'POST' ? { json: {} } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expectErrorShape(res.body, 404, 'not_found');
    }
    expect((await api.post('/1/group/message/NoSuchGroup1', { ...as(alice), json: { hello: 1 } })).status).toBe(404);
  });

  it('requires a credential', async () => {
    const res = await api.post('/1/group/create', { json: {} });
    expect(res.status).toBe(401);
    expectErrorShape(res.body, 401);
  });
});

describe('membership', () => {
  it('joins users (MapAttack: the app joins after create, players join with their own tokens) and lists members', async () => {
    const token = await newGroup(asApp(), { visibility: 'open', publish_access: 'open' });
    expect((await api.post(`/1/group/join/${token}`, asApp())).body).toEqual({ result: 'ok', group_token: token });
    const joined = await api.post(`/1/group/join/${token}`, as(alice));
    expect(joined.body).toEqual({ result: 'ok', group_token: token, user_id: alice.user_id, membership: 'publishing' });
    expect((await api.post(`/1/group/join/${token}`, { ...asApp(), json: { user_id: bob.user_id } })).body.membership).toBe('publishing');
    const members = await api.get(`/1/group/members/${token}`, as(alice));
    expect(members.status).toBe(200);
    expect(members.body.members.map((m: { profile: { user_id: string } }) => m.profile.user_id)).toEqual([alice.user_id, bob.user_id]);
    expect(members.body.members[0]).toEqual({ profile: expect.objectContaining({ user_id: alice.user_id, username: alice.username }), membership: 'publishing' });
    // Other members see a public profile: no email, phone or device tokens.
    expect(members.body.members[0].profile).not.toHaveProperty('devices');
    expect(members.body.members[0].profile).not.toHaveProperty('email');

    const subs = await api.get('/1/group/subscriptions', as(alice));
    expect(subs.body.groups.map((g: { group_token: string }) => g.group_token)).toContain(token);
    const left = await api.post(`/1/group/leave/${token}`, as(alice));
    expect(left.body).toEqual({ result: 'ok', group_token: token, user_id: alice.user_id });
    expect((await api.get('/1/group/subscriptions', as(alice))).body.groups.map((g: { group_token: string }) => g.group_token)).not.toContain(token);
    const bobs = await api.get('/1/group/subscriptions', { ...asApp(), query: { user_id: bob.user_id } });
    expect(bobs.body.groups).toEqual([expect.objectContaining({ group_token: token, membership: 'publishing' })]);
  });

  it('makes a self-joined member of a closed group a watcher, who may not post', async () => {
    const token = await newGroup(asApp(), { visibility: 'open', publish_access: 'closed' });
    expect((await api.post(`/1/group/join/${token}`, as(carol))).body.membership).toBe('subscribed');
    const posted = await api.post(`/1/group/message/${token}`, { ...as(carol), json: { hello: 'world' } });
    expect(posted.status).toBe(403);
    expectErrorShape(posted.body, 403, 'access_denied');
    // The application adding the same user makes them a publisher.
    expect((await api.post(`/1/group/join/${token}`, { ...asApp(), json: { user_id: carol.user_id } })).body.membership).toBe('publishing');
    expect((await api.post(`/1/group/message/${token}`, { ...as(carol), json: { hello: 'world' } })).status).toBe(200);
  });

  it('hides an invite-only group from users the owner did not add', async () => {
    const token = await newGroup(asApp(), { visibility: 'invite' });
    for (const res of [await api.get(`/1/group/info/${token}`, as(bob)), await api.post(`/1/group/join/${token}`, as(bob))]) {
      expect(res.status).toBe(404);
      expectErrorShape(res.body, 404, 'not_found');
    }
    await api.post(`/1/group/join/${token}`, { ...asApp(), json: { user_id: bob.user_id } });
    expect((await api.get(`/1/group/info/${token}`, as(bob))).status).toBe(200);
  });

  it('lets only an application token name another user', async () => {
    const token = await newGroup(asApp());
    const res = await api.post(`/1/group/join/${token}`, { ...as(alice), json: { user_id: bob.user_id } });
    expect(res.status).toBe(404);
    expectErrorShape(res.body, 404, 'not_found');
    expect((await api.post(`/1/group/join/${token}`, { ...asApp(), json: { user_id: 'NoSuchUser' } })).status).toBe(404);
    expect((await api.get('/1/group/subscriptions', asApp())).status).toBe(400);
  });

  it('drops a deleted user from their groups', async () => {
    const dave = await createAnonUser(api, app);
    const token = await newGroup(asApp());
    await api.post(`/1/group/join/${token}`, as(dave));
    const del = await api.post(`/1/user/delete/${dave.user_id}`, { basic: [app.client_id, app.client_secret] });
    expect(del.status).toBe(200);
    expect((await api.get(`/1/group/members/${token}`, asApp())).body.members).toEqual([]);
  });
});

describe('group/message and group/messages', () => {
  it('stores the message as posted, delivers it to every member\'s inbox, and lists it newest first', async () => {
    const token = await newGroup(asApp(), { visibility: 'open', publish_access: 'open' });
    await api.post(`/1/group/join/${token}`, as(alice));
    await api.post(`/1/group/join/${token}`, as(bob));
    const capture = { mapattack: { place_id: 'P1', team: 'red', points: 10 } };
    const first = await api.post(`/1/group/message/${token}`, { ...asApp(), json: capture });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ result: 'ok', total: 2 });
    const second = await api.post(`/1/group/message/${token}`, { ...as(alice), json: { text: 'Game over', url: 'https://example.com/score', push: true } });
    expect(second.status).toBe(200);

    const listed = await api.get(`/1/group/messages/${token}`, as(bob));
    expect(listed.status).toBe(200);
    expect(listed.body.paging).toEqual({ limit: 25, total: 2 });
    expect(listed.body.messages[0]).toMatchObject({ type: 'message', message: { text: 'Game over', url: 'https://example.com/score' }, user: { user_id: alice.user_id, username: alice.username } });
    expect(listed.body.messages[1]).toMatchObject({ type: 'message', message: capture, user: null });
    expect(listed.body.messages[1].date_ts).toEqual(expect.any(Number));

    const inbox = await api.get('/1/message/list', as(bob));
    const mine = inbox.body.messages.filter((m: { group_token?: string }) => m.group_token === token);
    expect(mine).toHaveLength(2);
    expect(mine[0]).toMatchObject({ text: 'Game over', url: 'https://example.com/score', group_token: token });
    expect(mine[1]).toMatchObject({ text: '', group_token: token, data: capture });
  });

  it('refuses push without text, an empty message, and keys no store can hold', async () => {
    const token = await newGroup(asApp());
    for (const json of [{ push: true, score: 1 }, {}, { 'a.b': 1 }, { $set: 1 }]) {
      const res = await api.post(`/1/group/message/${token}`, { ...asApp(), json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expectErrorShape(res.body, 400);
    }
  });

  it('takes form-encoded bodies with nested fields, as the Ruby client sends them', async () => {
    const token = await newGroup(asApp());
    const res = await api.post(`/1/group/message/${token}`, { ...asApp(), form: { 'mapattack[gamestate]': 'done' } });
    expect(res.status).toBe(200);
    expect((await api.get(`/1/group/messages/${token}`, asApp())).body.messages[0].message).toEqual({ mapattack: { gamestate: 'done' } });
  });
});

describe('group/last and group/locations', () => {
  it('shows each member\'s last location, and their recent points', async () => {
    const token = await newGroup(asApp());
    const eve = await createAnonUser(api, app);
    const frank = await createAnonUser(api, app);
    await api.post(`/1/group/join/${token}`, as(eve));
    await api.post(`/1/group/join/${token}`, as(frank));
    const up = await api.post('/1/location/update', { ...as(eve), json: [point(45.5, -122.6, '2024-05-01T10:00:00Z'), point(45.51, -122.61, '2024-05-01T10:01:00Z')] });
    expect(up.status).toBe(200);

    const last = await api.get(`/1/group/last/${token}`, asApp());
    expect(last.status).toBe(200);
    // Frank has no location yet: only Eve shows.
    expect(last.body.locations).toEqual([expect.objectContaining({
      user_id: eve.user_id, username: eve.username, latitude: 45.51, longitude: -122.61, date_ts: Date.parse('2024-05-01T10:01:00Z') / 1000,
      location: expect.objectContaining({ type: 'point' }),
    })]);

    const locs = await api.get(`/1/group/locations/${token}`, as(frank));
    expect(locs.status).toBe(200);
    expect(locs.body.paging).toEqual({ limit: 25, total: 2 });
    expect(locs.body.locations[0].user.user_id).toBe(eve.user_id);
    expect(locs.body.locations[0].history.map((p: { location: { position: { latitude: number } } }) => p.location.position.latitude)).toContain(45.51);
    expect(locs.body.locations[1]).toEqual({ user: expect.objectContaining({ user_id: frank.user_id }), history: [] });
  });
});
