// batch/run (reference §4.11): jobs run in order through the same routes and credential checks,
// one result per job; a failing job does not stop the others; at most 200 jobs; no nesting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let server: TestService;
let api: Api;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
  app = await createApp(api, 'batcher');
  other = await createApp(api, 'other');
});
afterAll(async () => server?.close());

type Result = { code: number; headers: Array<{ name: string; value: string }>; body: any; time_ms: number };

/** As geoloqi-ruby's Session#batch sends it: the token in the header and in the body, each job `{relative_url, body, headers: {}}`. */
const rubyBatch = (token: string, jobs: Array<{ relative_url: string; body?: unknown; headers?: unknown }>) =>
  api.post('/1/batch/run', {
    token,
    headers: { 'user-agent': 'geoloqi-ruby 0.9.44', accept: 'application/json' },
    json: { access_token: token, batch: jobs.map((j) => ({ headers: {}, ...j })) },
  });

const header = (r: Result, name: string) => r.headers.find((h) => h.name === name)?.value;

describe('batch/run', () => {
  it('runs a layer/create then a place/create in it, as the Ruby client sends them, and answers each in order', async () => {
    const created = await rubyBatch(app.access_token, [
      { relative_url: 'layer/create', body: { name: 'Batch layer', key: 'batch-layer' } },
      { relative_url: 'layer/create', body: { name: 'Batch layer', key: 'batch-layer' } },
    ]);
    expect(created.status).toBe(200);
    const [first, again] = created.body.result as Result[];
    expect(first).toMatchObject({ code: 200, body: { layer_id: expect.any(String), name: 'Batch layer' } });
    expect(first.time_ms).toEqual(expect.any(Number));
    expect(header(first, 'Content-Type')).toMatch(/^application\/json/);
    // The key is taken: the existing layer, 409, and its Location (reference §6.5), as a direct call answers.
    expect(again).toMatchObject({ code: 409, body: { layer_id: first.body.layer_id } });
    expect(header(again, 'Location')).toMatch(new RegExp(`/1/layer/info/${first.body.layer_id}$`));

    const layerId = first.body.layer_id;
    const res = await rubyBatch(app.access_token, [
      {
        relative_url: 'place/create',
        body: { layer_id: layerId, name: 'Powells', latitude: 45.5231, longitude: -122.6813, radius: 150, date_from: 1301572800, extra: { shelf: 'red' } },
      },
      { relative_url: `place/list?layer_id=${layerId}` },
    ]);
    expect(res.status).toBe(200);
    const [place, list] = res.body.result as Result[];
    expect(place).toMatchObject({ code: 200, body: { place_id: expect.any(String) } });
    // A job without a body is a GET, query string and all.
    expect(list.code).toBe(200);
    expect(list.body.places.map((p: { place_id: string; name: string }) => [p.place_id, p.name])).toEqual([[place.body.place_id, 'Powells']]);
    // What the batch did is there afterwards, for a direct call.
    const info = await api.get(`/1/place/info/${place.body.place_id}`, { token: app.access_token });
    expect(info.body).toMatchObject({ layer_id: layerId, extra: { shelf: 'red' } });
  });

  it('takes headers as raw lines (the reference\'s form): a Timezone header dates the job\'s answer', async () => {
    const res = await api.post('/1/batch/run', {
      json: {
        access_token: app.access_token,
        batch: [{
          relative_url: 'place/create',
          headers: ['Timezone: 2011-03-31T12:27:00-0700;;America/Los_Angeles'],
          body: { name: 'tz', latitude: 45.5, longitude: -122.6, radius: 100, date_from: 1301572800 },
        }],
      },
    });
    const [job] = res.body.result as Result[];
    expect(job.code).toBe(200);
    const info = await api.post('/1/batch/run', {
      json: { access_token: app.access_token, batch: [{ relative_url: `place/info/${job.body.place_id}`, headers: ['Timezone: 2011-03-31T12:27:00-0700;;America/Los_Angeles'] }] },
    });
    expect(info.body.result[0].body.date_from).toBe('2011-03-31T05:00:00-07:00');
  });

  it('runs the jobs after one that fails, each answering for itself', async () => {
    const res = await rubyBatch(app.access_token, [
      { relative_url: 'layer/create', body: { name: 'before' } },
      { relative_url: 'place/create', body: { name: 'nowhere', latitude: 91, longitude: 0, radius: 10 } },
      { relative_url: 'layer/info/nope' },
      { relative_url: 'no/such/method' },
      { relative_url: '../admin/app/list' },
      { relative_url: 'layer/create', body: { name: 'after' } },
    ]);
    expect(res.status).toBe(200);
    const results = res.body.result as Result[];
    expect(results.map((r) => r.code)).toEqual([200, 400, 404, 404, 400, 200]);
    expectErrorShape(results[1].body, 400, 'invalid_input');
    expectErrorShape(results[2].body, 404, 'not_found');
    expectErrorShape(results[3].body, 404, 'not_found');
    expectErrorShape(results[4].body, 400, 'invalid_input');
    expect(results[5].body.name).toBe('after');
  });

  it('runs a bodiless job for a POST-only method as a POST (geoloqi-ruby\'s post(path) with no body)', async () => {
    const layer = (await api.post('/1/layer/create', { token: app.access_token, json: { name: 'doomed' } })).body;
    const res = await rubyBatch(app.access_token, [{ relative_url: `layer/delete/${layer.layer_id}`, body: null }]);
    expect(res.body.result[0]).toMatchObject({ code: 200, body: { result: 'ok' } });
    expect((await api.get(`/1/layer/info/${layer.layer_id}`, { token: app.access_token })).status).toBe(404);
  });

  it('takes a body of [] (PHP\'s empty hash, as geoloqi-php sends no data) as {}: a GET where the path has one, else a POST', async () => {
    const layer = (await api.post('/1/layer/create', { token: app.access_token, json: { name: 'listed' } })).body;
    const doomed = (await api.post('/1/layer/create', { token: app.access_token, json: { name: 'doomed' } })).body;
    const res = await rubyBatch(app.access_token, [
      { relative_url: `layer/info/${layer.layer_id}`, body: [] },
      { relative_url: 'layer/list', body: [] },
      { relative_url: `layer/delete/${doomed.layer_id}`, body: [] },
    ]);
    expect(res.body.result.map((r: Result) => r.code)).toEqual([200, 200, 200]);
    expect(res.body.result[0].body).toMatchObject({ layer_id: layer.layer_id, name: 'listed' });
    expect(res.body.result[1].body.layers.map((l: { layer_id: string }) => l.layer_id)).toContain(layer.layer_id);
    expect((await api.get(`/1/layer/info/${doomed.layer_id}`, { token: app.access_token })).status).toBe(404);
  });

  it('refuses more than 200 jobs with a 400 in the error shape, and runs none of them', async () => {
    const jobs = Array.from({ length: 201 }, (_, i) => ({ relative_url: 'layer/create', body: { name: `over-${i}`, key: `over-${i}` } }));
    const res = await rubyBatch(app.access_token, jobs);
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toMatch(/batch/);
    const list = await api.get('/1/layer/list', { token: app.access_token });
    expect(list.body.layers.some((l: { name: string }) => l.name.startsWith('over-'))).toBe(false);
    // 200 is fine.
    const ok = await rubyBatch(app.access_token, Array.from({ length: 200 }, () => ({ relative_url: 'layer/list' })));
    expect(ok.status).toBe(200);
    expect(ok.body.result.map((r: Result) => r.code)).toEqual(Array(200).fill(200));
  });

  it('takes JSON only', async () => {
    const res = await api.post('/1/batch/run', { form: { access_token: app.access_token, batch: [{ relative_url: 'layer/list' }] } });
    expect(res.status).toBe(415);
    expectErrorShape(res.body, 415, 'unsupported_media_type');
  });

  it('without a token each job answers 401; with a bad one, 401 too', async () => {
    const none = await api.post('/1/batch/run', { json: { batch: [{ relative_url: 'layer/list' }, { relative_url: 'layer/create', body: { name: 'x' } }] } });
    expect(none.status).toBe(200);
    expect(none.body.result.map((r: Result) => r.code)).toEqual([401, 401]);
    expectErrorShape(none.body.result[1].body, 401);
    const bad = await api.post('/1/batch/run', { json: { access_token: 'not-a-token', batch: [{ relative_url: 'layer/list' }] } });
    expect(bad.body.result[0].code).toBe(401);
  });

  it('keeps another application\'s objects invisible inside a job (404), and a job\'s own Authorization wins', async () => {
    const mine = (await api.post('/1/layer/create', { token: other.access_token, json: { name: 'theirs' } })).body;
    const res = await rubyBatch(app.access_token, [
      { relative_url: `layer/info/${mine.layer_id}` },
      { relative_url: `layer/update/${mine.layer_id}`, body: { name: 'stolen' } },
      { relative_url: `layer/info/${mine.layer_id}`, headers: { Authorization: `OAuth ${other.access_token}` } },
    ]);
    expect(res.body.result.map((r: Result) => r.code)).toEqual([404, 404, 200]);
    expectErrorShape(res.body.result[0].body, 404, 'not_found');
    expect(res.body.result[2].body.name).toBe('theirs');
  });

  it('refuses a header token and a body token that differ', async () => {
    const res = await api.post('/1/batch/run', { token: other.access_token, json: { access_token: app.access_token, batch: [{ relative_url: 'layer/list' }] } });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, 'invalid_request');
  });

  it('refuses a batch inside a batch, and runs the jobs around it', async () => {
    const inner = { access_token: app.access_token, batch: [{ relative_url: 'layer/create', body: { name: 'nested' } }] };
    const res = await rubyBatch(app.access_token, [
      { relative_url: 'layer/list' },
      { relative_url: 'batch/run', body: inner },
      { relative_url: '%62atch/run', body: inner },
      { relative_url: './layer/../batch/run', body: inner },
      { relative_url: 'layer/list' },
    ]);
    const results = res.body.result as Result[];
    expect(results.map((r) => r.code)).toEqual([200, 400, 400, 400, 200]);
    for (const r of results.slice(1, 4)) expectErrorShape(r.body, 400, 'invalid_input');
    const list = await api.get('/1/layer/list', { token: app.access_token });
    expect(list.body.layers.some((l: { name: string }) => l.name === 'nested')).toBe(false);
  });

  it('refuses a batch whose answers add up to more than the cap with a 400 in the error shape, saying which jobs ran', async () => {
    const place = await api.post('/1/place/create', { token: app.access_token, json: { latitude: 40, longitude: -74, radius: 100 } });
    await api.post('/1/trigger/create', { token: app.access_token, json: { place_id: place.body.place_id, type: 'message', text: 'in' } });
    // 1,100 points in and out of the place: a full page of 1,000 timeline entries per replay.
    const t0 = Date.parse('2024-05-01T10:00:00Z');
    const track = {
      type: 'Feature',
      properties: { coordTimes: Array.from({ length: 1100 }, (_, i) => new Date(t0 + i * 60_000).toISOString()) },
      geometry: { type: 'LineString', coordinates: Array.from({ length: 1100 }, (_, i) => [-74 + (i % 2) * 0.007, 40]) },
    };
    const job = { relative_url: 'trigger/replay', body: { place_ids: [place.body.place_id], track } };
    const two = await rubyBatch(app.access_token, [job, job]);
    expect(two.status).toBe(200);
    expect(two.body.result.map((r: Result) => [r.code, r.body.entries.length, r.body.truncated])).toEqual([[200, 1000, true], [200, 1000, true]]);

    const res = await rubyBatch(app.access_token, Array.from({ length: 16 }, () => job));
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 400, 'invalid_input');
    expect(res.body.error_description).toMatch(/^batch: the answers of jobs 0 to (\d+) add up to more than 8 MiB, the most a batch answers\. Jobs 0 to \1 ran; the \d+ after them did not/);
  });
});
