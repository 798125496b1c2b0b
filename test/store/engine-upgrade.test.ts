// An operator upgrades with data in DATA_DIR: a store the release before typed tables wrote (through
// its API: points with history, machines inside, dwelling and spent, the decision timeline, a
// history batch handed out) opens with this release, which migrates its tables at open, and gives
// the same answers; the engine goes on from the migrated machines. The fixture (as SQL text) and
// that release's answers were made by fixtures/engine-upgrade.ts.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestService } from '../helpers/server.js';
import { ask, at, CENTRE, fixtureClock, questions, T0, type Answers } from './fixtures/engine-upgrade.js';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'engine-upgrade');


describe('a DATA_DIR of the release before typed tables', () => {
  let service: TestService;
  let answers: Answers;

  beforeAll(async () => {
    answers = JSON.parse(await readFile(path.join(FIXTURE, 'answers.json'), 'utf8')) as Answers;
    const dataDir = await mkdtemp(path.join(tmpdir(), 'engine-upgrade-'));
    const db = openDatabase(path.join(dataDir, 'geotrigger.sqlite'));
    db.exec(await readFile(path.join(FIXTURE, 'data.sql'), 'utf8'));
    db.close();
    service = await startApp({ dataDir, now: fixtureClock() });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('answers every question as that release did', async () => {
    for (const q of questions(answers)) {
      const now = (await ask(service.api, answers, q)).body;
      // Every field that release answered, with its value (lists of the same length); an answer may gain fields.
      expect(now, q).toMatchObject(answers.get[q]!);
    }
  });

  it('keeps timeline entry ids sorting by time, newest first, for the entries written since', async () => {
    const u1 = answers.users[0]!;
    expect((await service.api.post('/1/location/update', { token: u1.token, json: [at(300, 2300), at(310, 2000)] })).status).toBe(200);
    const res = await service.api.get('/1/trigger/timeline', { token: answers.app.token, query: { user_id: u1.user_id } });
    const ids = (res.body.entries as Array<{ id: string }>).map((e) => e.id);
    expect(ids.length).toBeGreaterThan(5);
    expect([...ids].sort().reverse()).toEqual(ids);
  });

  it('deletes a history batch handed out before the upgrade', async () => {
    const u1 = answers.users[0]!;
    const before = await service.api.get('/1/location/history', { token: u1.token, query: { count: 100 } });
    const res = await service.api.post(`/1/location/delete_batch/${answers.batch.id}`, { token: u1.token });
    expect(res.body).toEqual({ deleted: answers.batch.points });
    const after = await service.api.get('/1/location/history', { token: u1.token, query: { count: 100 } });
    expect(after.body.points).toHaveLength(before.body.points.length - answers.batch.points);
  });

  it('goes on from the migrated machines: a dwelling user leaves, a batch sent again is not stored twice', async () => {
    const [u1, u2] = answers.users;
    const [, dwell] = answers.triggers;
    const far = { date: new Date(T0 + 400_000).toISOString(), location: { position: { ...CENTRE, horizontal_accuracy: 10 } } };
    expect((await service.api.post('/1/location/update', { token: u2!.token, json: [far] })).status).toBe(200);
    const state = await service.api.get(`/1/trigger/state/${dwell}`, { token: answers.app.token, query: { user_id: u2!.user_id } });
    expect(state.body.machines[0]).toMatchObject({ state: 'outside' });
    expect(state.body.machines[0].timeline[0]).toMatchObject({ kind: 'transition', event: 'leave', from: 'dwelling', to: 'outside' });
    const history = async () => (await service.api.get('/1/location/history', { token: u1!.token, query: { count: 100 } })).body.points.length;
    const n = await history();
    // The second request of the walk, as that release stored it.
    expect((await service.api.post('/1/location/update', { token: u1!.token, json: [at(100, 1000), at(150, 1010, 12, { client: { name: 'sdk' } })] })).status).toBe(200);
    expect(await history()).toBe(n);
  });
});
