// A full disk: the service is run on a small tmpfs and fed points until the filesystem is full.
// Every write on the full disk is a 503 in the error shape and /health says writes are failing; a
// kill -9 on the full disk, a restart on the still-full disk, then more space: every point that
// was acknowledged is there. And a little space freed (less than the write-ahead log holds) brings
// writes back at once: the WAL's checkpoint no longer takes it first (docs/operations.md).
// Mounting a tmpfs needs root (CI and the developers' machines run as root); elsewhere the test is
// skipped.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../load-tests/processes.js';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp, expectErrorShape } from '../helpers/fixtures.js';
import { ADMIN_TOKEN } from '../helpers/server.js';
import { killService, startService } from '../helpers/service-process.js';

function tryMount(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const mountPoint = mkdtempSync(path.join(tmpdir(), 'disk-full-'));
const mounted = process.getuid?.() === 0 && tryMount(mountPoint, '6m');

describe.skipIf(!mounted)('a full disk', () => {
  const children: ChildProcess[] = [];
  const dataDir = path.join(mountPoint, 'data');

  afterAll(async () => {
    for (const c of children) await killService(c);
    execFileSync('umount', [mountPoint], { stdio: 'ignore' });
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('answers 503 on the full disk, starts again on it, and keeps every acknowledged point', { timeout: 180_000 }, async () => {
    const port = await freePort();
    children.push(await startService(dataDir, port));
    const api = new Api(`http://127.0.0.1:${port}`);
    const app = await createApp(api);
    expect((await api.post(`/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: true } })).status).toBe(200);
    const user = await createAnonUser(api, app);

    // Batches of points, each with a large `raw`, until the store refuses one.
    const acknowledged: number[] = [];
    const padding = 'x'.repeat(2000);
    let refused: { status: number; body: unknown } | undefined;
    for (let batch = 0; batch < 2000 && !refused; batch++) {
      const dates = Array.from({ length: 20 }, (_, i) => 1_700_000_000 + batch * 20 + i);
      const res = await api.post('/1/location/update', {
        token: user.access_token,
        json: dates.map((date) => ({ date, location: { position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 } }, raw: { padding } })),
      });
      if (res.status === 200) acknowledged.push(...dates);
      else refused = res;
    }
    expect(refused?.status).toBe(503);
    expectErrorShape(refused!.body, 503, 'service_unavailable');
    expect(acknowledged.length).toBeGreaterThan(0);
    const health = await api.get('/health');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'writes_failing', store: { writable: false } });

    // Killed on the full disk, and started again on it.
    await killService(children.pop()!);
    children.push(await startService(dataDir, port));
    const stillFull = await api.post('/1/location/update', {
      token: user.access_token,
      json: Array.from({ length: 50 }, (_, i) => ({ date: 1_760_000_000 + i, location: { position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 } }, raw: { padding } })),
    });
    expect(stillFull.status, JSON.stringify(stillFull.body)).toBe(503);
    expectErrorShape(stillFull.body, 503, 'service_unavailable');

    // Space again: writes go through, /health recovers, and every acknowledged point is there.
    execFileSync('mount', ['-o', 'remount,size=64m', mountPoint]);
    const after = await api.post('/1/location/update', {
      token: user.access_token,
      json: [{ date: 1_760_001_000, location: { position: { latitude: 45.6, longitude: -122.6, horizontal_accuracy: 10 } } }],
    });
    expect(after.status).toBe(200);
    expect((await api.get('/health')).status).toBe(200);
    const stored = new Set<number>();
    let before = '';
    for (;;) {
      const page = await api.get(`/1/location/history?count=1000${before}`, { token: user.access_token });
      expect(page.status).toBe(200);
      const points = page.body.points as Array<{ date_ts: number }>;
      for (const p of points) stored.add(p.date_ts);
      if (points.length < 1000) break;
      before = `&before=${Math.min(...points.map((p) => p.date_ts))}`;
    }
    for (const date of acknowledged) expect(stored.has(date), `acknowledged point ${date}`).toBe(true);
  });
});

const smallFs = mkdtempSync(path.join(tmpdir(), 'disk-freed-'));
const smallMounted = process.getuid?.() === 0 && tryMount(smallFs, '16m');

describe.skipIf(!smallMounted)('a full disk with a little space freed', () => {
  const children: ChildProcess[] = [];

  afterAll(async () => {
    for (const c of children) await killService(c);
    execFileSync('umount', [smallFs], { stdio: 'ignore' });
    rmSync(smallFs, { recursive: true, force: true });
  });

  it('takes writes again at once', { timeout: 180_000 }, async () => {
    // Space the operator will free: less than the write-ahead log will hold when the disk is full.
    const spare = path.join(smallFs, 'spare');
    writeFileSync(spare, Buffer.alloc(3 * 1024 * 1024, 1));
    const dataDir = path.join(smallFs, 'data');
    const port = await freePort();
    children.push(await startService(dataDir, port));
    const api = new Api(`http://127.0.0.1:${port}`);
    const app = await createApp(api);
    expect((await api.post(`/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: true } })).status).toBe(200);
    const user = await createAnonUser(api, app);
    const point = (date: number, raw: unknown = null) => ({ date, location: { position: { latitude: 45.5, longitude: -122.6, horizontal_accuracy: 10 } }, raw });

    const padding = 'x'.repeat(2000);
    let full = false;
    for (let batch = 0; batch < 4000 && !full; batch++) {
      const res = await api.post('/1/location/update', { token: user.access_token, json: Array.from({ length: 20 }, (_, i) => point(1_700_000_000 + batch * 20 + i, { padding })) });
      full = res.status === 503;
    }
    expect(full).toBe(true);
    const wal = statSync(path.join(dataDir, 'geotrigger.sqlite-wal')).size;
    expect(wal).toBeGreaterThan(3 * 1024 * 1024);

    unlinkSync(spare);
    // A point a request (a commit each, far less than the space freed in all) over several rounds of
    // the checkpoint thread: every one is taken.
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      statuses.push((await api.post('/1/location/update', { token: user.access_token, json: [point(1_760_000_000 + i)] })).status);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect((await api.get('/health')).status).toBe(200);
  });
});
