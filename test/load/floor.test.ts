// The floor server (load-tests/floor-server.ts), a separate process like the baseline: it takes the
// harness's tokens and bodies, refuses what the service would, stores each request's newest point
// as a line, answers only after its shard thread saw the points; and the shard's crossing count.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FenceIndex } from '../../src/geo/fence-index.js';
import { crossings, floorToken, type FloorCircle } from '../../load-tests/floor-shard.js';
import { LoadGenerator } from '../../load-tests/load-generator.js';
import { ChildServer, freePort } from '../../load-tests/processes.js';
import { buildPlan } from '../../load-tests/tracks.js';
import { DEFAULT_ZONES, generateWorld } from '../../load-tests/world.js';

const CIRCLE: FloorCircle = { key: 'a', lat: 45.5, lon: -122.6, radius: 200 };
let server: ChildServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'floor-test-'));
  await writeFile(path.join(dir, 'circles.json'), JSON.stringify([CIRCLE]));
  server = await ChildServer.start({
    script: 'load-tests/floor-server.ts', port: await freePort(),
    env: { FLOOR_USERS: '40', FLOOR_CIRCLES: path.join(dir, 'circles.json'), FLOOR_FILE: path.join(dir, 'points.jsonl') },
  });
});

afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

const point = (lat: number, date = '2026-01-01T12:00:00Z') => ({ date, location: { type: 'point', position: { latitude: lat, longitude: -122.6, horizontal_accuracy: 10 } } });

function post(token: string | undefined, body: unknown) {
  return fetch(`${server.url}/1/location/update`, {
    method: 'POST', body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `OAuth ${token}` } : {}) },
  });
}

describe('floor server', () => {
  it('answers a known token ok and appends the newest point as a line', async () => {
    const res = await post(floorToken(7), [point(45.4, '2026-01-01T12:00:00Z'), point(45.5001, '2026-01-01T12:00:09Z')]);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ response: 'ok' });
    const lines = (await readFile(path.join(dir, 'points.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ user_id: 7, latitude: 45.5001, date: Date.parse('2026-01-01T12:00:09Z') });
  });

  it('refuses an unknown token with 401 and a bad point with 400, in the error shape, storing nothing', async () => {
    const before = await readFile(path.join(dir, 'points.jsonl'), 'utf8').catch(() => '');
    const denied = await post('floor-999', [point(45.5)]);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ error_code: 401, error: 'invalid_token' });
    expect((await post(undefined, [point(45.5)])).status).toBe(401);
    const bad = await post(floorToken(1), [{ location: {} }]);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error_code: 400, error: 'invalid_input' });
    expect(await readFile(path.join(dir, 'points.jsonl'), 'utf8').catch(() => '')).toBe(before);
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
  it('counts each enter and leave of a user once, per user', () => {
    const index = new FenceIndex<FloorCircle>();
    index.upsert([CIRCLE, { key: 'b', lat: 45.5, lon: -122.6, radius: 50 }]);
    const inside = new Map<number, Set<string>>();
    const run = (users: number[], lats: number[]) =>
      Array.from(crossings(index, inside, { users: Int32Array.from(users), lat: Float64Array.from(lats), lon: Float64Array.from(lats.map(() => -122.6)) }));
    // User 1 enters both circles, stays, then leaves both; user 2 enters the wide one only (~110 m off the centre).
    expect(run([1, 2], [45.5, 45.501])).toEqual([2, 1]);
    expect(run([1, 2], [45.5, 45.501])).toEqual([0, 0]);
    expect(run([1, 2], [45.51, 45.5])).toEqual([2, 1]);
  });
});
