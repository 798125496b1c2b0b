// The baseline server (a separate bare-Fastify process) and the load generator driving it: the
// same bodies the service gets, throughput counted, RSS sampled from /proc, stopped by its pid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoadGenerator } from '../../load-tests/load-generator.js';
import { ChildServer, freePort, readRssMb } from '../../load-tests/processes.js';
import { buildPlan } from '../../load-tests/tracks.js';
import { DEFAULT_ZONES, generateWorld } from '../../load-tests/world.js';

let server: ChildServer;

beforeAll(async () => {
  server = await ChildServer.start({ script: 'load-tests/baseline-server.ts', env: {}, port: await freePort() });
});

afterAll(async () => {
  await server?.stop();
});

function context(users: number) {
  const world = generateWorld({
    seed: 3, users, geofences: 200, dwellS: 3, rateLimitS: 8, durationS: 3, quietShare: 0.2, lateShare: 0.2, jitterShare: 0.1, spacingM: 350, runId: 'b',
  });
  const plans = world.users.map((u) => buildPlan(world, u, { seed: 3, durationS: 3, dwellS: 3, zones: DEFAULT_ZONES }));
  return { seed: 3, world, plans, zones: DEFAULT_ZONES };
}

describe('baseline server', () => {
  it('answers location/update like the service and refuses a body that is not an array', async () => {
    const ok = await fetch(`${server.url}/1/location/update`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' });
    expect(await ok.json()).toEqual({ response: 'ok' });
    const bad = await fetch(`${server.url}/1/location/update`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error_code: 400, error: 'invalid_input' });
  });

  it('is driven by the load generator in batch mode, one request in flight per phone, points in order', async () => {
    const ctx = context(40);
    const gen = new LoadGenerator({ baseUrl: server.url, tokens: ctx.world.users.map(() => 'x'), ctx, durationMs: 1500, batch: 5, concurrency: 8, staleShare: 0.2, record: true });
    const stats = await gen.run();
    expect(stats.httpErrors).toBe(0);
    expect(stats.okRequests).toBeGreaterThan(50);
    expect(stats.points).toBeGreaterThanOrEqual(stats.okRequests * 5);
    for (const phone of gen.phones) {
      // Device times only go forward, apart from the deliberately stale points.
      const fresh = phone.rec.times.filter((_, k) => !phone.rec.stale.has(k));
      fresh.forEach((t, i) => i > 0 && expect(t).toBeGreaterThan(fresh[i - 1]));
      for (const r of phone.rec.requests) expect(r.ackAt).toBeGreaterThanOrEqual(r.sentAt);
    }
    expect(gen.phones.some((p) => p.rec.stale.size > 0)).toBe(true);
  });

  it('leaves the warm-up out of the measured figures: points, requests and latencies after it only', async () => {
    const ctx = context(40);
    const gen = new LoadGenerator({
      baseUrl: server.url, tokens: ctx.world.users.map(() => 'x'), ctx, durationMs: 2000, warmupMs: 1000, batch: 5, concurrency: 8, staleShare: 0, record: true,
    });
    const stats = await gen.run();
    expect(stats.measuredFrom).toBe(stats.startedAt + 1000);
    const acks = gen.phones.flatMap((p) => p.rec.requests).filter((r) => r.ok);
    const after = acks.filter((r) => r.ackAt >= stats.measuredFrom);
    expect(acks.length).toBe(stats.okRequests);
    expect(after.length).toBeGreaterThan(0);
    expect(after.length).toBeLessThan(acks.length);
    expect(stats.measuredRequests).toBe(after.length);
    expect(stats.measuredPoints).toBe(after.reduce((n, r) => n + r.count, 0));
    expect(stats.latencies).toHaveLength(after.length);
    // The timeline keeps every second, warm-up included.
    expect(stats.timeline.reduce((n, b) => n + b.points, 0)).toBe(stats.points);
  });

  // How close it comes to the target rate, and its own CPU, depend on the machine: the harness's
  // reports measure those. Here, what holds on any machine: it sends, and never above the target.
  it('sends in open-loop mode, never more than the target rate allows', async () => {
    const ctx = context(100);
    const gen = new LoadGenerator({ baseUrl: server.url, tokens: ctx.world.users.map(() => 'x'), ctx, durationMs: 2000, batch: 1, ratePps: 200, concurrency: 8, staleShare: 0, record: false });
    const stats = await gen.run();
    expect(stats.points).toBeGreaterThan(0);
    expect(stats.points).toBeLessThanOrEqual(401);
  });

  it('sends at a target above 1,000 requests a second, never more than it allows', async () => {
    // Slots under a millisecond apart: the scheduler once spun on them and sent almost nothing.
    const ctx = context(400);
    const gen = new LoadGenerator({ baseUrl: server.url, tokens: ctx.world.users.map(() => 'x'), ctx, durationMs: 2000, batch: 1, ratePps: 2000, concurrency: 32, staleShare: 0, record: false });
    const stats = await gen.run();
    expect(stats.okRequests).toBeGreaterThan(0);
    expect(stats.points).toBeLessThanOrEqual(4001);
  });

  it('has its memory sampled from /proc while it runs', async () => {
    expect(await readRssMb(server.pid)).toBeGreaterThan(10);
    expect(server.rss.peakMb).toBeGreaterThan(10);
  });
});
