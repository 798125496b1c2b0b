// user/delete and the callbacks about that user, over a real server and real HTTP receivers: once
// the delete has answered, nothing more about the user leaves the service. The user's firings go,
// callbacks waiting for a retry and dead ones (with the payload they kept) alike, and the other
// users' callbacks go on as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackFiring } from './firing-rows.js';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';
import { Receiver } from './receiver.js';
import { until } from './helpers.js';

let server: TestService;
let api: Api;
let app: TestApp;
const retrying = new Receiver();
const refusing = new Receiver();

beforeAll(async () => {
  await Promise.all([retrying.start(), refusing.start()]);
  // One attempt per round and rounds 0.5-1 s apart: the test can act between two rounds.
  server = await startApp({ delivery: { pollMs: 25, round: { retries: 0 }, backoff: { baseMs: 1_000, capMs: 1_000 }, timeoutMs: 2_000 } });
  api = server.api;
  app = await createApp(api, 'deleted users');
});
afterAll(async () => {
  await server?.close();
  await Promise.all([retrying.stop(), refusing.stop()]);
});

const outboxRows = (userId: string) => server.app.ctx.store.firings.history({ app_id: app.application_id, user_id: userId }, 0, 100);
const stored = (eventId: string) => server.app.ctx.store.firings.get(eventId);
const aboutUser = (rx: Receiver, userId: string) => rx.received.filter((r) => JSON.parse(r.body).user.user_id === userId);

async function enter(user: TestUser) {
  const point = { date: new Date().toISOString(), location: { position: { latitude: 45.52, longitude: -122.68, horizontal_accuracy: 10 } } };
  expect((await api.post('/1/location/update', { token: user.access_token, json: [point] })).status).toBe(200);
}

describe('user/delete and the outbox', () => {
  it('forgets the user\'s callbacks, waiting for a retry or dead, and leaves other users\' alone', async () => {
    retrying.plan([], 500);
    refusing.plan([], 400);
    for (const url of [retrying.url, refusing.url]) {
      const res = await api.post('/1/trigger/create', {
        token: app.access_token, json: { type: 'callback', url, latitude: 45.52, longitude: -122.68, radius: 300, trigger_on: 'enter' },
      });
      expect(res.status).toBe(200);
    }
    const [gone, kept] = [await createAnonUser(api, app), await createAnonUser(api, app)];
    await enter(gone);
    await enter(kept);

    // Each user has one dead callback (refused with a 400) and one waiting for its next round.
    const settled = (userId: string) => async () => {
      const rows = await outboxRows(userId);
      return rows.length === 2 && rows.some((r) => r.status === 'dead') && rows.some((r) => r.status === 'pending' && r.attempts >= 1);
    };
    await until(settled(gone.user_id));
    await until(settled(kept.user_id));
    const goneIds = (await outboxRows(gone.user_id)).map((r) => r.event_id);
    expect((await Promise.all(goneIds.map(stored))).every((r) => r?.payload !== undefined)).toBe(true);

    expect((await api.post(`/1/user/delete/${gone.user_id}`, { token: app.access_token })).status).toBe(200);
    const attemptsAtDelete = aboutUser(retrying, gone.user_id).length;
    retrying.plan([], 200);

    // The other user's retry goes through, so the receiver was taking callbacks again...
    await until(() => aboutUser(retrying, kept.user_id).some((r) => r.status === 200));
    // ...and a few more rounds' time later, nothing about the deleted user has reached it.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(aboutUser(retrying, gone.user_id)).toHaveLength(attemptsAtDelete);
    expect(aboutUser(retrying, gone.user_id).every((r) => r.status === 500)).toBe(true);

    // Gone, payload and all; a round under way at the delete would have ended its own (and kept
    // nothing of it but an unlisted outcome).
    for (const id of goneIds) {
      const row = await stored(id);
      if (row) expect(row).toMatchObject({ unlisted: true, status: 'dead', last_error: expect.stringMatching(/user was deleted/) });
      expect(row?.payload).toBeUndefined();
    }
    expect(await server.app.ctx.store.attempts.list(goneIds[0]!)).toEqual([]);
    // The other user's dead callback keeps its payload for inspection, as before.
    const keptDead = (await outboxRows(kept.user_id)).find((r) => r.status === 'dead')!;
    expect((await stored(keptDead.event_id))?.payload).toBeDefined();
  });

  it('does not send a callback written after the delete (a firing that raced it), and keeps no payload', async () => {
    retrying.plan([], 200);
    const user = await createAnonUser(api, app);
    expect((await api.post(`/1/user/delete/${user.user_id}`, { token: app.access_token })).status).toBe(200);
    const ctx = server.app.ctx;
    const eventId = `late_${user.user_id}`;
    const payload = JSON.stringify({ event_id: eventId, user: { user_id: user.user_id } });
    // As recordFirings stores it, then signals the dispatcher.
    await ctx.store.firings.insert([callbackFiring({ event_id: eventId, app_id: app.application_id, trigger_id: 't', user_id: user.user_id, place_id: 'p', layer_id: 'l', url: retrying.url, payload }, Date.now())]);
    ctx.delivery.dispatcher!.wake();
    const row = await until(async () => {
      const r = await ctx.store.firings.get(eventId);
      return r?.status === 'dead' ? r : undefined;
    });
    expect(row.last_error).toMatch(/user was deleted/);
    expect(row).not.toHaveProperty('payload');
    expect(aboutUser(retrying, user.user_id)).toEqual([]);
  });
});
