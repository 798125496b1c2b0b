// /metrics from the real server (docs/operations.md "Metrics"): over its socket, with the shards
// and the callback sender in their worker threads and a real receiver, the figures move as points
// and callbacks flow, and a receiver that fails and comes back is counted while it fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from './helpers/fixtures.js';
import { startServer, type TestServer } from './helpers/server.js';
import { Receiver } from './delivery/receiver.js';
import { until } from './delivery/helpers.js';

const METRICS_TOKEN = 'scraper-token-e2e-0123456789';

function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const at = (date: number, lat: number, lon: number) => ({ date, location: { position: { latitude: lat, longitude: lon, horizontal_accuracy: 5 } } });

describe('/metrics on the real server', () => {
  let s: TestServer;
  let app: TestApp;
  let receiver: Receiver;
  const scrape = async () => {
    const res = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    return res.text();
  };

  beforeAll(async () => {
    // A failed round is retried after a few tens of milliseconds, not seconds.
    s = await startServer({ env: { METRICS_TOKEN }, delivery: { pollMs: 25, round: { retries: 0 }, backoff: { baseMs: 50, jitter: 'full' } } });
    app = await createApp(s.api, 'metrics-e2e');
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await s?.close();
  });

  it('refuses a scrape without the token', async () => {
    const res = await fetch(`${s.url}/metrics`);
    expectErrorShape(await res.json(), 401, 'invalid_token');
  });

  it('counts points, firings and attempts from the threads, and a failing receiver until it answers again', async () => {
    const before = await scrape();
    // Both shard threads' queues, and the main thread's event loop, watched since the start.
    expect(before).toMatch(/^geotrigger_shard_queue_depth\{shard="0"\} \d+$/m);
    expect(before).toMatch(/^geotrigger_shard_queue_depth\{shard="1"\} \d+$/m);
    expect(before).toMatch(/^geotrigger_event_loop_lag_seconds \d/m);
    // Failing until it is seen failing, then back.
    receiver.plan([], 503);
    const trigger = await s.api.post('/1/trigger/create', { token: app.access_token, json: { latitude: 50, longitude: 50, radius: 100, type: 'callback', url: receiver.url } });
    expect(trigger.status, JSON.stringify(trigger.body)).toBe(200);
    const users = await Promise.all([0, 1, 2, 3].map(() => createAnonUser(s.api, app)));
    const date = Math.floor(Date.now() / 1000);
    for (const u of users) {
      const res = await s.api.post('/1/location/update', { token: u.access_token, json: [at(date - 10, 50.1, 50), at(date - 9, 50, 50)] });
      expect(res.status).toBe(200);
    }
    const failing = await until(async () => {
      const text = await scrape();
      return value(text, 'geotrigger_receivers_failing') === 1 ? text : undefined;
    });
    expect(value(failing, 'geotrigger_delivery_attempts_total{outcome="5xx"}') - value(before, 'geotrigger_delivery_attempts_total{outcome="5xx"}')).toBeGreaterThan(0);
    expect(value(failing, 'geotrigger_outbox_depth')).toBeGreaterThan(0);
    receiver.plan([], 200);
    await until(() => receiver.delivered().length >= 4);
    const after = await until(async () => {
      const text = await scrape();
      const done = value(text, 'geotrigger_delivery_latency_seconds_count') - value(before, 'geotrigger_delivery_latency_seconds_count') === 4;
      return done && value(text, 'geotrigger_outbox_depth') === 0 ? text : undefined;
    });
    const d = (series: string) => value(after, series) - value(before, series);
    expect(d('geotrigger_points_received_total')).toBe(8);
    expect(d('geotrigger_points_applied_total')).toBe(8);
    expect(d('geotrigger_firings_total{event="enter"}')).toBe(4);
    expect(d('geotrigger_delivery_attempts_total{outcome="2xx"}')).toBe(4);
    expect(value(after, 'geotrigger_receivers_failing')).toBe(0);
    expect(value(after, 'geotrigger_outbox_oldest_age_seconds')).toBe(0);
  });
});
