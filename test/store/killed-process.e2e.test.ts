// A service killed with SIGKILL (no graceful close: the WAL is not checkpointed) must come back
// with everything it acknowledged, from a database that passes SQLite's integrity check.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { freePort } from '../../load-tests/processes.js';
import { createAnonUser, createApp } from '../helpers/fixtures.js';
import { killService as kill, startService } from '../helpers/service-process.js';
import { DATABASE_FILE } from '../../src/store/sqlite/engine.js';

describe('a killed service', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) await kill(c);
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('restarts with every acknowledged write, from a database that passes an integrity check', { timeout: 90_000 }, async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'killed-'));
    dirs.push(dataDir);
    const port = await freePort();
    let child = await startService(dataDir, port);
    children.push(child);
    const api = new Api(`http://127.0.0.1:${port}`);
    const app = await createApp(api);
    const user = await createAnonUser(api, app);
    for (const [i, lat] of [45.51, 45.52, 45.53].entries()) {
      const res = await api.post('/1/location/update', {
        token: user.access_token,
        json: [{ date: 1_700_000_000 + i, location: { position: { latitude: lat, longitude: -122.6, horizontal_accuracy: 10 } } }],
      });
      expect(res.status).toBe(200);
    }
    const place = await api.post('/1/place/create', {
      token: app.access_token,
      json: { latitude: 45.5, longitude: -122.6, radius: 100, name: 'written before the kill' },
    });
    expect(place.status).toBe(200);
    await kill(child);

    const db = openDatabase(path.join(dataDir, DATABASE_FILE));
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();

    child = await startService(dataDir, port);
    children.push(child);
    const last = await api.get('/1/location/last', { token: user.access_token });
    expect(last.status).toBe(200);
    expect(last.body.location.position.latitude).toBe(45.53);
    const got = await api.get(`/1/place/info/${place.body.place_id}`, { token: app.access_token });
    expect(got.status).toBe(200);
    expect(got.body.name).toBe('written before the kill');
    await kill(child);
  });
});
