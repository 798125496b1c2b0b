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

/** How much each series moved from one scrape to the next. */
const moved = (before: string, after: string) => (series: string) => value(after, series) - value(before, series);

const at = (date: number, lat: number, lon: number) => ({ date, location: { position: { latitude: lat, longitude: lon, horizontal_accuracy: 5 } } });

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
    s = await startApp({ env: { METRICS_TOKEN }, delivery: { pollMs: 25, round: { retries: 0 } } });
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
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      'geotrigger_points_received_total', 'geotrigger_points_applied_total', 'geotrigger_decisions_total', 'geotrigger_firings_total',
      'geotrigger_gated_firings_total', 'geotrigger_delivery_attempts_total', 'geotrigger_outbox_depth', 'geotrigger_outbox_oldest_age_seconds',
      'geotrigger_delivery_latency_seconds', 'geotrigger_event_loop_lag_seconds', 'geotrigger_process_memory_bytes', 'geotrigger_shard_queue_depth',
      'geotrigger_store_write_seconds', 'geotrigger_receivers_failing',
    ]) expect(res.body).toContain(`# TYPE ${name} `);
    // Every labelled series is there from the start, and one queue per shard.
    expect(res.body).toContain('geotrigger_delivery_attempts_total{outcome="5xx"} 0');
    expect(res.body).toMatch(/^geotrigger_shard_queue_depth\{shard="1"\} \d+$/m);
    expect(value(res.body, 'geotrigger_process_memory_bytes{kind="rss"}')).toBeGreaterThan(0);
    expect((await s.api.get('/metrics', { bearer: ADMIN_TOKEN })).status).toBe(200);
  });

  it('answers nobody else: no token, a wrong one, an application token', async () => {
    expectErrorShape((await s.api.get('/metrics')).body, 401, 'invalid_token');
    expectErrorShape((await s.api.get('/metrics', { bearer: 'not-the-token-at-all' })).body, 401, 'invalid_token');
    expectErrorShape((await s.api.get('/metrics', { bearer: `${METRICS_TOKEN}x` })).body, 401, 'invalid_token');
    expectErrorShape((await s.api.get('/metrics', { token: app.access_token })).body, 401, 'invalid_token');
  });

  it('moves when points, firings and callbacks flow', async () => {
    const before = await scrape();
    const trigger = await s.api.post('/1/trigger/create', {
      token: app.access_token, json: { latitude: 10, longitude: 10, radius: 100, type: 'callback', url: receiver.url },
    });
    expect(trigger.status, JSON.stringify(trigger.body)).toBe(200);
    const user = await createAnonUser(s.api, app);
    const date = Math.floor(Date.now() / 1000);
    // Outside, then inside: one enter.
    let res = await s.api.post('/1/location/update', { token: user.access_token, json: [at(date - 10, 10.1, 10), at(date - 9, 10, 10)] });
    expect(res.status).toBe(200);
    // The first point again: received, older than the last applied one, so not applied.
    res = await s.api.post('/1/location/update', { token: user.access_token, json: [at(date - 10, 10.1, 10)] });
    expect(res.status).toBe(200);
    await until(() => receiver.delivered().length >= 1);
    const after = await until(async () => {
      const text = await scrape();
      return value(text, 'geotrigger_delivery_latency_seconds_count') > value(before, 'geotrigger_delivery_latency_seconds_count') ? text : undefined;
    });
    const d = moved(before, after);
    expect(d('geotrigger_points_received_total')).toBe(3);
    expect(d('geotrigger_points_applied_total')).toBe(2);
    expect(d('geotrigger_firings_total{event="enter"}')).toBe(1);
    expect(d('geotrigger_firings_total{event="leave"}')).toBe(0);
    expect(d('geotrigger_decisions_total{kind="fired"}')).toBe(1);
    expect(d('geotrigger_delivery_attempts_total{outcome="2xx"}')).toBe(1);
    expect(d('geotrigger_delivery_latency_seconds_count')).toBe(1);
    expect(d('geotrigger_store_write_seconds_count')).toBeGreaterThan(0);
    expect(value(after, 'geotrigger_outbox_depth')).toBe(0);
  });

  it('counts a gated firing by its gate, a failed attempt by its class, the waiting callback and its failing receiver', async () => {
    const before = await scrape();
    const layer = (await s.api.post('/1/layer/create', { token: app.access_token, json: { name: 'limited', public: 1, trigger_rate_limit: 3600 } })).body;
    const place = (await s.api.post('/1/place/create', { token: app.access_token, json: { layer_id: layer.layer_id, latitude: 20, longitude: 20, radius: 100 } })).body;
    const failing = await new Receiver().start();
    try {
      failing.plan([], 500);
      const trigger = await s.api.post('/1/trigger/create', { token: app.access_token, json: { place_id: place.place_id, type: 'callback', url: failing.url } });
      expect(trigger.status, JSON.stringify(trigger.body)).toBe(200);
      const user = await createAnonUser(s.api, app);
      expect((await s.api.post(`/1/layer/subscribe/${layer.layer_id}`, { token: user.access_token })).status).toBe(200);
      const date = Math.floor(Date.now() / 1000);
      // In, out, in again within the layer's rate limit: one firing, one gated.
      const walk = [20, 20.1, 20, 20.1].map((lat, i) => at(date - 40 + i * 10, lat, 20));
      expect((await s.api.post('/1/location/update', { token: user.access_token, json: walk })).status).toBe(200);
      const after = await until(async () => {
        const text = await scrape();
        return value(text, 'geotrigger_receivers_failing') > 0 ? text : undefined;
      });
      const d = moved(before, after);
      expect(d('geotrigger_gated_firings_total{gate="rate_limit"}')).toBe(1);
      expect(d('geotrigger_decisions_total{kind="gated"}')).toBe(1);
      expect(d('geotrigger_firings_total{event="enter"}')).toBe(1);
      // The leaves of an enter trigger move the pair and fire nothing.
      expect(d('geotrigger_decisions_total{kind="transition"}')).toBe(2);
      expect(d('geotrigger_delivery_attempts_total{outcome="5xx"}')).toBe(1);
      expect(d('geotrigger_delivery_attempts_total{outcome="2xx"}')).toBe(0);
      // Waiting for its next round: in the outbox, not delivered.
      expect(value(after, 'geotrigger_outbox_depth')).toBe(1);
      expect(value(after, 'geotrigger_outbox_oldest_age_seconds')).toBeGreaterThan(0);
      expect(d('geotrigger_delivery_latency_seconds_count')).toBe(0);
    } finally {
      await failing.stop();
    }
  });

  it('counts a pair let go when its user leaves the layer', async () => {
    const layer = (await s.api.post('/1/layer/create', { token: app.access_token, json: { name: 'left', public: 1 } })).body;
    const place = (await s.api.post('/1/place/create', { token: app.access_token, json: { layer_id: layer.layer_id, latitude: 40, longitude: 40, radius: 100 } })).body;
    await s.api.post('/1/trigger/create', { token: app.access_token, json: { place_id: place.place_id, type: 'message', text: 'hi', trigger_on: 'leave' } });
    const user = await createAnonUser(s.api, app);
    expect((await s.api.post(`/1/layer/subscribe/${layer.layer_id}`, { token: user.access_token })).status).toBe(200);
    const date = Math.floor(Date.now() / 1000);
    expect((await s.api.post('/1/location/update', { token: user.access_token, json: [at(date - 5, 40, 40)] })).status).toBe(200);
    const before = await scrape();
    expect((await s.api.post(`/1/layer/unsubscribe/${layer.layer_id}`, { token: user.access_token })).status).toBe(200);
    const after = await until(async () => {
      const text = await scrape();
      return moved(before, text)('geotrigger_decisions_total{kind="dropped"}') > 0 ? text : undefined;
    });
    expect(moved(before, after)('geotrigger_decisions_total{kind="dropped"}')).toBe(1);
    expect(moved(before, after)('geotrigger_firings_total{event="leave"}')).toBe(0);
  });

  it('counts a refused connection by its class', async () => {
    const before = await scrape();
    // A port nothing listens on: a receiver stopped at once.
    const gone = await new Receiver().start();
    const url = gone.url;
    await gone.stop();
    const trigger = await s.api.post('/1/trigger/create', { token: app.access_token, json: { latitude: 30, longitude: 30, radius: 100, type: 'callback', url } });
    expect(trigger.status, JSON.stringify(trigger.body)).toBe(200);
    const user = await createAnonUser(s.api, app);
    const date = Math.floor(Date.now() / 1000);
    expect((await s.api.post('/1/location/update', { token: user.access_token, json: [at(date - 5, 30.1, 30), at(date - 4, 30, 30)] })).status).toBe(200);
    await until(async () => (moved(before, await scrape())('geotrigger_delivery_attempts_total{outcome="refused"}') === 1 ? true : undefined));
  });
});

describe('/metrics without a token configured', () => {
  it('is off, saying which setting turns it on', async () => {
    const s = await startApp({ env: { ADMIN_TOKEN: '' } });
    try {
      const res = await s.api.get<any>('/metrics', { bearer: 'scraper-token-0123456789' });
      expectErrorShape(res.body, 404, 'not_found');
      expect(res.body.error_description).toContain('METRICS_TOKEN');
    } finally {
      await s.close();
    }
  });
});
