// An operator upgrades with data in DATA_DIR: messages, message/device payloads and the dwell
// clock's service starts written by the release that kept them as documents (fixtures/typed-upgrade,
// made by fixtures/typed-upgrade.ts) open with this release, which moves them into their tables at
// open: every document reads back exactly, message/list answers as that release did, and the data
// goes on being used (a message marked delivered, a payload taken, a start recorded).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordServiceStart } from '../../src/engine/service-starts.js';
import type { DeviceMessageDoc, MessageDoc } from '../../src/store/documents.js';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startApp, type TestService } from '../helpers/server.js';
import { T0, type TypedAnswers } from './fixtures/typed-upgrade.js';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'typed-upgrade');

async function fixtureDir(): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'typed-upgrade-'));
  const db = openDatabase(path.join(dataDir, 'geotrigger.sqlite'));
  db.exec(await readFile(path.join(FIXTURE, 'data.sql'), 'utf8'));
  db.close();
  return dataDir;
}

describe('a DATA_DIR whose messages, payloads and service starts are documents', () => {
  let answers: TypedAnswers;
  let dataDir: string;
  let store: Store;
  const app = () => answers.app.application_id;

  beforeAll(async () => {
    answers = JSON.parse(await readFile(path.join(FIXTURE, 'answers.json'), 'utf8')) as TypedAnswers;
    dataDir = await fixtureDir();
    store = await openStore({ kind: 'embedded', dataDir });
  });
  afterAll(async () => {
    await store?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const expectEveryDocument = async () => {
    const messages = answers.messages as unknown as MessageDoc[];
    for (const m of messages) expect(await store.messages.get(m.app_id, m._id)).toStrictEqual(m);
    for (const u of answers.users) {
      const own = messages.filter((m) => m.user_id === u.user_id).sort((a, b) => b.date - a.date || (a._id < b._id ? 1 : -1));
      expect(await store.messages.page(app(), u.user_id, { offset: 0, limit: 100 })).toStrictEqual({ items: own, total: own.length });
    }
    const payloads = answers.device_messages as unknown as DeviceMessageDoc[];
    const waiting = await store.deviceMessages.waiting(app(), payloads[0]!.user_id, T0);
    expect(waiting).toStrictEqual([...payloads].sort((a, b) => a.date - b.date));
    expect(await store.serviceStarts.load()).toEqual(answers.service_starts[0]!.starts);
  };

  it('reads every message, payload and start exactly as stored', expectEveryDocument);

  it('reads the same after a restart on the moved tables', async () => {
    await store.close();
    store = await openStore({ kind: 'embedded', dataDir });
    await expectEveryDocument();
  });

  it('goes on from them: the queue, a delivery, a payload taken, a start recorded', async () => {
    const [a] = answers.users;
    const messages = answers.messages as unknown as MessageDoc[];
    const queued = messages.filter((m) => m.user_id === a!.user_id && m.delivered_at === undefined).sort((x, y) => x.date - y.date);
    // After the recording's delivery: what was still undelivered then.
    const later = T0 + 600_000;
    expect((await store.messages.queue(app(), a!.user_id, later, undefined, 100)).map((m) => m._id)).toEqual(queued.map((m) => m._id));
    expect(await store.messages.markDelivered(app(), queued[0]!._id, later + 1)).toBe(true);
    expect((await store.messages.queue(app(), a!.user_id, later + 2, undefined, 100)).map((m) => m._id)).toEqual(queued.slice(1).map((m) => m._id));
    const [payload] = answers.device_messages as unknown as DeviceMessageDoc[];
    expect(await store.deviceMessages.take(app(), payload!._id)).toBe(true);
    const before = answers.service_starts[0]!.starts as number[];
    const now = before.at(-1)! + 1_000;
    expect(await recordServiceStart(store, now, 3_600_000)).toEqual([...before, now]);
    expect(await store.serviceStarts.load()).toEqual([...before, now]);
  });
});

describe('the same DATA_DIR through the API', () => {
  let answers: TypedAnswers;
  let service: TestService;

  beforeAll(async () => {
    answers = JSON.parse(await readFile(path.join(FIXTURE, 'answers.json'), 'utf8')) as TypedAnswers;
    // The recording's clock: the tokens it handed out are still good.
    service = await startApp({ dataDir: await fixtureDir(), now: () => T0 + 600_000 });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('answers message/list for every user as that release did', async () => {
    for (const u of answers.users) {
      const res = await service.api.get('/1/message/list', { token: u.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(answers.lists[u.user_id]);
    }
  });
});
