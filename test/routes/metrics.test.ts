// GET /metrics (docs/operations.md "Metrics"): the Prometheus text format, to the admin or the
// metrics token only; its figures move when points and callbacks flow through the service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnonUser, createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';
import { Receiver } from '../delivery/receiver.js';
import { until } from '../delivery/helpers.js';

const METRICS_TOKEN = 'scraper-token-0123456789';

/** The value of one series in a scrape: `name` or `name{labels}` as written, 0 when absent. */
function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('/metrics', () => {
  let s: TestService;
  let app: TestApp;
  let receiver: Receiver;
  const scrape = async (token = METRICS_TOKEN) => {
    const res = await s.api.get<string>('/metrics', { bearer: token });
    expect(res.status, res.body).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    s = await startApp({ env: { METRICS_TOKEN }, delivery: { pollMs: 25, round: { retries: 0 }, timeoutMs: 2_000 } });
    app = await createApp(s.api, 'metrics');
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await s?.close();
  });

  it('answers the metrics token and the admin token, in the Prometheus text format', async () => {
    const res = await s.api.get<string>('/metrics', { bearer: METRICS_TOKEN });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      'geotrigger_points_received_total', 'geotrigger_outbox_depth', 'geotrigger_outbox_oldest_age_seconds', 'geotrigger_delivery_latency_seconds',
      'geotrigger_event_loop_lag_seconds', 'geotrigger_process_memory_bytes', 'geotrigger_shard_queue_depth', 'geotrigger_store_write_seconds',
      'geotrigger_receivers_failing',
    ]) expect(res.body).toContain(`# TYPE ${name} `);
    expect((await s.api.get('/metrics', { bearer: ADMIN_TOKEN })).status).toBe(200);
  });

  it('answers nobody else: no token, a wrong one, an application token', async () => {
    expectErrorShape((await s.api.get('/metrics')).body, 401, 'invalid_token');
    expectErrorShape((await s.api.get('/metrics', { bearer: 'not-the-token-at-all' })).body, 401, 'invalid_token');
    expectErrorShape((await s.api.get('/metrics', { token: app.access_token })).body, 401, 'invalid_token');
  });

  it('moves when points, firings and callbacks flow', async () => {
    const before = await scrape();
    await s.api.post('/1/trigger/create', {
      token: app.access_token, json: { latitude: 10, longitude: 10, radius: 100, type: 'callback', url: receiver.url },
    });
    const user = await createAnonUser(s.api, app);
    const date = Math.floor(Date.now() / 1000);
    const res = await s.api.post('/1/location/update', {
      token: user.access_token,
      json: [10.1, 10].map((lat, i) => ({ date: date - 10 + i, location: { position: { latitude: lat, longitude: 10, horizontal_accuracy: 5 } } })),
    });
    expect(res.status).toBe(200);
    await until(() => receiver.delivered().length >= 1);
    const after = await until(async () => {
      const text = await scrape();
      return value(text, 'geotrigger_delivery_latency_seconds_count') > value(before, 'geotrigger_delivery_latency_seconds_count') ? text : undefined;
    });
    expect(value(after, 'geotrigger_points_received_total') - value(before, 'geotrigger_points_received_total')).toBe(2);
    expect(value(after, 'geotrigger_points_applied_total') - value(before, 'geotrigger_points_applied_total')).toBe(2);
    expect(value(after, 'geotrigger_firings_total{event="enter"}') - value(before, 'geotrigger_firings_total{event="enter"}')).toBe(1);
    expect(value(after, 'geotrigger_decisions_total{kind="fired"}') - value(before, 'geotrigger_decisions_total{kind="fired"}')).toBe(1);
    expect(value(after, 'geotrigger_delivery_attempts_total{outcome="2xx"}') - value(before, 'geotrigger_delivery_attempts_total{outcome="2xx"}')).toBe(1);
    expect(value(after, 'geotrigger_store_write_seconds_count')).toBeGreaterThan(value(before, 'geotrigger_store_write_seconds_count'));
    expect(value(after, 'geotrigger_process_memory_bytes{kind="rss"}')).toBeGreaterThan(0);
  });

  it('counts a gated firing by its gate and a failed attempt by its class', async () => {
    const before = await scrape();
    const layer = (await s.api.post('/1/layer/create', { token: app.access_token, json: { name: 'limited', trigger_rate_limit: 3600 } })).body;
    const place = (await s.api.post('/1/place/create', { token: app.access_token, json: { layer_id: layer.layer_id, latitude: 20, longitude: 20, radius: 100 } })).body;
    await s.api.post('/1/trigger/create', { token: app.access_token, json: { place_id: place.place_id, type: 'callback', url: `${receiver.url}/fail` } });
    receiver.plan([], 500);
    const user = await createAnonUser(s.api, app);
    await s.api.post(`/1/layer/subscribe/${layer.layer_id}`, { token: user.access_token });
    const date = Math.floor(Date.now() / 1000);
    const walk = [20, 20.1, 20, 20.1].map((lat, i) => ({ date: date - 40 + i * 10, location: { position: { latitude: lat, longitude: 20, horizontal_accuracy: 5 } } }));
    expect((await s.api.post('/1/location/update', { token: user.access_token, json: walk })).status).toBe(200);
    const after = await until(async () => {
      const text = await scrape();
      return value(text, 'geotrigger_delivery_attempts_total{outcome="5xx"}') > value(before, 'geotrigger_delivery_attempts_total{outcome="5xx"}') ? text : undefined;
    });
    expect(value(after, 'geotrigger_gated_firings_total{gate="rate_limit"}') - value(before, 'geotrigger_gated_firings_total{gate="rate_limit"}')).toBe(1);
    receiver.plan([], 200);
  });
});
