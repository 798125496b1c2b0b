// An operator upgrades with their data in DATA_DIR: a database written by the previous release
// (previous-release/data.sql, made by previous-release/record.ts through the public API) opens,
// its tables are brought to the current layout without loss, and every read answers exactly as the
// previous release answered it (previous-release/answers.json), over a restart too.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { Api } from '../helpers/api.js';
import { ADMIN_TOKEN } from '../helpers/server.js';
import { READ_AT, READS, type Credentials, type Read } from './previous-release/reads.js';

const HERE = path.join(path.dirname(new URL(import.meta.url).pathname), 'previous-release');

interface Answer {
  request: Read;
  status: number;
  body: unknown;
}

/**
 * API hit counts are counted per request, in memory until flushed: a restarted service reads the
 * stored counts plus its own, never the previous process's unflushed ones, so they are left out.
 */
function comparable(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (k, v) => (k === 'api_hits' ? '(counted per process)' : ADDED.has(k) ? undefined : v));
}

/** Fields answers gained since (a format may gain fields, never lose one): not in the recorded answers. */
const ADDED = new Set(['received_at', 'received_at_ts', 'delivered_at', 'delivered_at_ts', 'late']);

describe('a DATA_DIR of the previous release', () => {
  let dataDir: string;
  let app: FastifyInstance | undefined;
  let api: Api;
  let creds: Credentials;
  let answers: Answer[];

  const start = async () => {
    const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN, LOG_LEVEL: 'silent', CALLBACK_ALLOW_PRIVATE: 'true', SHARDS: '2', PASSWORD_HASH_COST: '12' });
    app = await buildApp({ config, now: () => READ_AT, logger: false, engine: { inProcess: true }, delivery: { senderThread: false } });
    await app.ready();
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'geotrigger-upgrade-'));
    const db = openDatabase(path.join(dataDir, 'geotrigger.sqlite'));
    db.pragma('journal_mode = WAL');
    db.exec(await readFile(path.join(HERE, 'data.sql'), 'utf8'));
    db.close();
    creds = JSON.parse(await readFile(path.join(HERE, 'credentials.json'), 'utf8')) as Credentials;
    answers = JSON.parse(await readFile(path.join(HERE, 'answers.json'), 'utf8')) as Answer[];
    await start();
    api = new Api({ inject: (opts) => app!.inject(opts) });
  });
  afterAll(async () => {
    await app?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const replay = async () => {
    expect(answers).toHaveLength(READS.length);
    for (const [i, read] of READS.entries()) {
      const req = read(creds);
      const res = await api.request(req.method ?? 'GET', req.path, req.options);
      // Every field the previous release answered, with its value (lists of the same length); an answer may gain fields.
      expect({ read: i, path: req.path, status: res.status, body: comparable(res.body) })
        .toMatchObject({ read: i, path: answers[i]!.request.path, status: answers[i]!.status, body: comparable(answers[i]!.body) as object });
    }
  };

  it('answers every read as the previous release did', replay);

  it('answers the same after a restart on the migrated data', async () => {
    await app!.close();
    await start();
    await replay();
  });
});
