import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { buildApp, redactUrl } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { withoutQueries } from '../src/delivery/firing-log.js';
import { until } from './delivery/helpers.js';
import { Receiver } from './delivery/receiver.js';
import { createAnonUser, createApp } from './helpers/fixtures.js';
import { startApp } from './helpers/server.js';

it('masks credential parameters in URLs', () => {
  expect(redactUrl('/1/stream?access_token=usr-abc&x=1')).toBe('/1/stream?access_token=[redacted]&x=1');
  expect(redactUrl('/1/user/list?client_id=a&client_secret=s3cret')).toBe('/1/user/list?client_id=a&client_secret=[redacted]');
  expect(redactUrl('/1/location/last?OAUTH_TOKEN=t')).toBe('/1/location/last?OAUTH_TOKEN=[redacted]');
});

it('writes no credential from the query string or the Authorization header to the request log', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'redaction-'));
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const app = await buildApp({ config: loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'info' }), logStream });
  try {
    await app.inject({ method: 'GET', url: '/1/location/last?access_token=usr-secret-value' });
    await app.inject({ method: 'GET', url: '/1/location/last', headers: { authorization: 'OAuth usr-header-secret' } });
    const log = lines.join('');
    expect(log).toContain('/1/location/last?access_token=[redacted]');
    expect(log).not.toContain('usr-secret-value');
    expect(log).not.toContain('usr-header-secret');
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
});

it('logs firings and failed callback attempts by id, without the body, the secret, a token or a URL query', async () => {
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const server = await startApp({ logStream, env: { LOG_LEVEL: 'info' }, delivery: { pollMs: 25, round: { retries: 0 }, backoff: { baseMs: 50, capMs: 100 } } });
  const receiver = await new Receiver().start();
  try {
    const { api } = server;
    const app = await createApp(api, 'logged');
    const user = await createAnonUser(api, app);
    const url = `${receiver.url}?key=callback-url-secret`;
    const t = await api.post('/1/trigger/create', {
      token: app.access_token,
      json: { latitude: 45.5165, longitude: -122.6764, radius: 100, type: 'callback', url, text: 'callback-body-text', trigger_on: 'enter' },
    });
    receiver.plan([500], 200);
    const point = { date: Math.floor(Date.now() / 1000), location: { position: { latitude: 45.5165, longitude: -122.6764, horizontal_accuracy: 5 } } };
    expect((await api.post('/1/location/update', { token: user.access_token, json: [point] })).status).toBe(200);
    await until(() => receiver.delivered().length === 1);
    const records = () => lines.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const fired = await until(() => records().find((r) => r.msg === 'trigger fired'));
    expect(fired).toMatchObject({ level: 30, trigger_id: t.body.trigger_id, user_id: user.user_id, app_id: app.application_id, event_id: expect.any(String) });
    const failed = records().find((r) => r.msg === 'callback attempt failed');
    expect(failed).toMatchObject({ level: 40, event_id: fired.event_id, trigger_id: t.body.trigger_id, user_id: user.user_id, status: 500, error: 'HTTP 500', attempt: 1 });
    const log = lines.join('');
    for (const secret of [app.webhook_secret, app.client_secret, app.access_token, user.access_token, 'callback-body-text', 'callback-url-secret']) {
      expect(log).not.toContain(secret);
    }
  } finally {
    await receiver.stop();
    await server.close();
  }
});

it('drops the query of a URL in a logged error', () => {
  expect(withoutQueries('HTTP 302: redirect to https://x.example/a?token=t#f not followed')).toBe('HTTP 302: redirect to https://x.example/a?[redacted] not followed');
});
