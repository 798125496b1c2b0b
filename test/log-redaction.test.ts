import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { buildApp, redactUrl } from '../src/app.js';
import { loadConfig } from '../src/config.js';

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
