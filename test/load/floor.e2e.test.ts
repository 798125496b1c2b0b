// The floor server (load-tests/floor-server.ts), a separate process like the baseline: it takes the
// harness's tokens and bodies, refuses what the service would, stores each request's newest point
// and each callback's row as lines before answering, and sends the callbacks its points call for,
// signed, to a receiver; and the shard's zones and firings.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FloorState, floorToken, floorWorld, packBatch, type FloorBatch, type FloorWorld } from '../../load-tests/floor-shard.js';
import { LoadGenerator } from '../../load-tests/load-generator.js';
import { ChildServer, freePort } from '../../load-tests/processes.js';
import { CallbackReceiver } from '../../load-tests/receiver.js';
import { buildPlan } from '../../load-tests/tracks.js';
import { DEFAULT_ZONES, generateWorld } from '../../load-tests/world.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
// Circle "a" (200 m) on the default layer with an enter and a leave callback; "b" (50 m, same
// centre) on layer "sub", entering it calls back.
const WORLD: FloorWorld = {
  circles: [
    { key: 'a', lat: 45.5, lon: -122.6, radius: 200, layer: 'default', enter: ['/cb/a-in'], leave: ['/cb/a-out'] },
    { key: 'b', lat: 45.5, lon: -122.6, radius: 50, layer: 'sub', enter: ['/cb/b-in'] },
  ],
  users: Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? ['sub'] : [])),
};
let server: ChildServer;
let receiver: CallbackReceiver;
let dir: string;
const lines = async () => (await readFile(path.join(dir, 'points.jsonl'), 'utf8').catch(() => '')).split('\n').filter(Boolean).map((l) => JSON.parse(l));

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'floor-test-'));
  await writeFile(path.join(dir, 'world.json'), JSON.stringify(WORLD));
  receiver = new CallbackReceiver({ webhookSecret: SECRET });
  const url = await receiver.start();
  server = await ChildServer.start({
    script: 'load-tests/floor-server.ts', port: await freePort(),
    env: { FLOOR_WORLD: path.join(dir, 'world.json'), FLOOR_FILE: path.join(dir, 'points.jsonl'), FLOOR_CALLBACK_URL: url, FLOOR_WEBHOOK_SECRET: SECRET },
  });
});

afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
  await rm(dir, { recursive: true, force: true });
});

const point = (lat: number, date: string) => ({ date, location: { type: 'point', position: { latitude: lat, longitude: -122.6, horizontal_accuracy: 10 } } });

function post(token: string | undefined, body: unknown) {
  return fetch(`${server.url}/1/location/update`, {
    method: 'POST', body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `OAuth ${token}` } : {}) },
  });
}

async function until(check: () => boolean) {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
}

describe('floor server', () => {
  it('stores the newest point before answering, and sends each callback its points call for, signed', async () => {
    // User 6 (on "sub") comes from outside into both circles: two enters.
    const res = await post(floorToken(6), [point(45.51, '2026-01-01T12:00:00Z'), point(45.5001, '2026-01-01T12:00:09Z')]);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ response: 'ok' });
    const stored = await lines();
    expect(stored.find((l) => l._id === 6)).toMatchObject({ latitude: 45.5001, date: Date.parse('2026-01-01T12:00:09Z') });
    expect(stored.filter((l) => l.status === 'pending').map((l) => l.url).sort()).toEqual(['/cb/a-in', '/cb/b-in']);
    await until(() => receiver.accepted >= 2);
    const got = receiver.deliveries;
    expect(got.map((d) => d.path).sort()).toEqual(['/cb/a-in', '/cb/b-in']);
    // The receiver checked the signature and read a payload it knows.
    for (const d of got) expect(d.problems).toEqual([]);
  });

  it('makes no callbacks at all without a callback URL: no outbox line, nothing sent', async () => {
    const bare = await ChildServer.start({
      script: 'load-tests/floor-server.ts', port: await freePort(),
      env: { FLOOR_WORLD: path.join(dir, 'world.json'), FLOOR_FILE: path.join(dir, 'bare.jsonl') },
    });
    try {
      const sent = receiver.accepted;
      const res = await fetch(`${bare.url}/1/location/update`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `OAuth ${floorToken(8)}` },
        body: JSON.stringify([point(45.51, '2026-01-01T12:00:00Z'), point(45.5, '2026-01-01T12:00:05Z')]),
      });
      expect(res.status).toBe(200);
      const stored = (await readFile(path.join(dir, 'bare.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
      expect(stored).toEqual([expect.objectContaining({ _id: 8, latitude: 45.5 })]);
      await new Promise((r) => setTimeout(r, 100));
      expect(receiver.accepted).toBe(sent);
    } finally {
      await bare.stop();
    }
  });

  it('takes an older point as nothing, like the service', async () => {
    const before = (await lines()).length;
    expect((await post(floorToken(6), [point(45.6, '2026-01-01T11:00:00Z')])).status).toBe(200);
    expect((await lines()).length).toBe(before);
  });

  it('refuses an unknown token with 401 and a bad point with 400, in the error shape, storing nothing', async () => {
    const before = (await lines()).length;
    const denied = await post('floor-999', [point(45.5, '2026-01-01T12:00:00Z')]);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ error_code: 401, error: 'invalid_token' });
    expect((await post(undefined, [point(45.5, '2026-01-01T12:00:00Z')])).status).toBe(401);
    const bad = await post(floorToken(1), [{ location: {} }]);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error_code: 400, error: 'invalid_input' });
    expect((await lines()).length).toBe(before);
  });

  it('is driven by the load generator with the floor tokens, without errors', async () => {
    const world = generateWorld({
      seed: 5, users: 40, geofences: 100, dwellS: 3, rateLimitS: 8, durationS: 2, quietShare: 0, lateShare: 0.2, jitterShare: 0.1, spacingM: 350, runId: 'f',
    });
    const plans = world.users.map((u) => buildPlan(world, u, { seed: 5, durationS: 2, dwellS: 3, zones: DEFAULT_ZONES }));
    const gen = new LoadGenerator({
      baseUrl: server.url, tokens: world.users.map((_, i) => floorToken(i)), ctx: { seed: 5, world, plans, zones: DEFAULT_ZONES },
      durationMs: 1200, batch: 1, concurrency: 8, staleShare: 0.1, record: false,
    });
    const stats = await gen.run();
    expect(stats.httpErrors).toBe(0);
    expect(stats.okRequests).toBeGreaterThan(50);
  });
});

describe('floor shard', () => {
  const batch = (users: number[], lats: number[], acc = 10): FloorBatch =>
    packBatch(users, lats, lats.map(() => -122.6), lats.map(() => acc), lats.map(() => (clock += 1000)));
  let clock = 0;

  it('fires on crossings only, per user, on the user\'s layers, with the service\'s hysteresis', () => {
    const state = new FloorState(WORLD);
    // User 0 (on "sub") and user 1 (not) step into both circles: 0 fires both enters, 1 only a's.
    let out = state.apply(batch([0, 1], [45.5, 45.5]));
    expect(Array.from(out.crossings)).toEqual([2, 2]);
    expect(out.firings).toEqual([[0, '/cb/a-in', 'enter'], [0, '/cb/b-in', 'enter'], [1, '/cb/a-in', 'enter']]);
    // Staying fires nothing; 210 m out is inside a's leave margin (20 m): still in a, out of b.
    out = state.apply(batch([0, 1], [45.5, 45.5 + 210 / 111_195]));
    expect(out.firings).toEqual([]);
    expect(Array.from(out.crossings)).toEqual([0, 1]);
    // 300 m out leaves a.
    out = state.apply(batch([1], [45.5 + 300 / 111_195]));
    expect(out.firings).toEqual([[0, '/cb/a-out', 'leave']]);
  });

  it('keeps to a layer\'s rate limit per user and trigger, by device time', () => {
    const state = new FloorState({ circles: [{ ...WORLD.circles[0]!, rateLimitS: 5 }], users: [[]] });
    const far = 45.5 + 300 / 111_195;
    // In, out, in again within 5 s: the second enter is gated; the leave fires (another trigger).
    expect(state.apply(batch([0], [45.5])).firings.map((f) => f[1])).toEqual(['/cb/a-in']);
    expect(state.apply(batch([0], [far])).firings.map((f) => f[1])).toEqual(['/cb/a-out']);
    expect(state.apply(batch([0], [45.5])).firings).toEqual([]);
    clock += 5000;
    expect(state.apply(batch([0], [far])).firings.map((f) => f[1])).toEqual(['/cb/a-out']);
    expect(state.apply(batch([0], [45.5])).firings.map((f) => f[1])).toEqual(['/cb/a-in']);
  });

  it('lets a poor fix move nothing', () => {
    const state = new FloorState(WORLD);
    expect(state.apply(batch([0], [45.5], 500)).firings).toEqual([]);
  });

  it('takes the callback triggers that fire on every crossing from the harness world', () => {
    const world = generateWorld({
      seed: 5, users: 40, geofences: 300, dwellS: 3, rateLimitS: 8, durationS: 60, quietShare: 0, lateShare: 0, jitterShare: 0, spacingM: 350, runId: 'f',
    });
    const fw = floorWorld(world);
    expect(fw.circles).toHaveLength(world.places.length);
    const paths = fw.circles.flatMap((c) => [...(c.enter ?? []), ...(c.leave ?? [])]);
    const plain = world.geofences.filter((g) => {
      const t = world.triggers[g.trigger]!;
      return t.type === 'callback' && t.afterS === 0 && !t.oneTime && !t.window;
    });
    expect(paths).toHaveLength(plain.length);
    expect(paths.length).toBeGreaterThan(0);
    expect(fw.users).toEqual(world.users.map((u) => u.layers));
  });
});
