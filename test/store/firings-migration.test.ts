// A DATA_DIR whose delivery tables an older release wrote (a firing in two documents: its
// trigger_history row and its outbox row, some outbox fields in columns, the delivering attempt not
// logged) opens with every firing moved into the firings table without loss, and trigger/history's
// delivery answers stay what the older release gave.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/store/sqlite/driver.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isoDate } from '../../src/schemas/dates.js';
import { deliveryOf } from '../../src/services/history-delivery.js';
import { DATABASE_FILE } from '../../src/store/sqlite/engine.js';
import { openStore, type Store } from '../../src/store/store.js';

const T = 1_700_000_000_000;
const OUTBOX_COLUMNS = [
  'status', 'next_attempt_at', 'lease_until', 'lease_owner', 'attempts', 'rounds', 'updated_at', 'app_id', 'user_id', 'trigger_id', 'url',
  'last_status', 'last_error', 'delivered_at', 'last_duration_ms', 'payload',
];

/** Writes documents as the older release's engine stored them: `(_id, doc)`, column fields out of the JSON. */
function writeOld(file: string, docs: { trigger_history: object[]; outbox: object[]; delivery_attempts: object[] }) {
  const db = openDatabase(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE trigger_history (_id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL)');
  db.exec('CREATE TABLE delivery_attempts (_id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL)');
  db.exec(`CREATE TABLE outbox (_id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL, ${OUTBOX_COLUMNS.join(', ')})`);
  db.exec('CREATE INDEX ix_outbox__status__next_attempt_at ON outbox (status, next_attempt_at)');
  for (const name of ['trigger_history', 'delivery_attempts'] as const) {
    for (const d of docs[name] as Array<{ _id: string }>) db.prepare(`INSERT INTO ${name} (_id, doc) VALUES (?, ?)`).run(d._id, JSON.stringify(d));
  }
  for (const d of docs.outbox as Array<Record<string, unknown>>) {
    const rest: Record<string, unknown> = {};
    const cols: unknown[] = [];
    for (const c of OUTBOX_COLUMNS) {
      const v = d[c];
      cols.push(typeof v === 'string' || typeof v === 'number' ? v : null);
    }
    for (const [k, v] of Object.entries(d)) if (!(OUTBOX_COLUMNS.includes(k) && (typeof v === 'string' || typeof v === 'number'))) rest[k] = v;
    db.prepare(`INSERT INTO outbox (_id, doc, ${OUTBOX_COLUMNS.join(', ')}) VALUES (?, ?${', ?'.repeat(OUTBOX_COLUMNS.length)})`).run(d._id, JSON.stringify(rest), ...cols);
  }
  db.close();
}

const ids = { app_id: 'A', user_id: 'U', trigger_id: 'T', place_id: 'P', layer_id: 'L' };
const hist = (id: string, over: object = {}) => ({ _id: id, ...ids, type: 'callback', triggered_on: 'enter', delay_s: 0, date: T, ...over });
const box = (id: string, over: object = {}) => ({
  _id: id, ...ids, url: 'http://a.test/cb', payload: `{"event_id":"${id}"}`, status: 'pending', attempts: 0, rounds: 0, next_attempt_at: T,
  lease_until: 0, created_at: T, updated_at: T, ...over,
});

describe('the delivery tables of an older release', () => {
  let dir: string;
  let store: Store | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'firings-migration-'));
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('opens with every firing moved, its delivery and attempt log kept, and the same trigger/history answers', async () => {
    writeOld(path.join(dir, DATABASE_FILE), {
      trigger_history: [
        hist('delivered', { delivery: { status: 'delivered', attempts: 2, updated_at: T + 9 } }),
        hist('waiting', { delivery: { status: 'pending', attempts: 1, last_error: 'HTTP 503', updated_at: T + 5 } }),
        hist('leased', { delivery: { status: 'pending', attempts: 0, updated_at: T } }),
        hist('dead', { date: T + 1, delivery: { status: 'dead', attempts: 1, last_error: 'HTTP 410: the receiver says this endpoint is gone', updated_at: T + 3 } }),
        hist('swept', { delivery: { status: 'delivered', attempts: 1, updated_at: T + 2 } }),
        hist('message', { type: 'message', triggered_on: 'leave', delay_s: 30, delivery: { status: 'delivered', attempts: 0, updated_at: T + 4 } }),
        hist('gated:gated', { type: 'message', gate: 'rate_limit' }),
        hist('ran', { run: true, delivery: { status: 'pending', attempts: 0, updated_at: T } }),
      ],
      outbox: [
        box('delivered', { status: 'delivered', attempts: 2, rounds: 1, payload: undefined, last_status: 200, delivered_at: T + 8, last_duration_ms: 4, updated_at: T + 9 }),
        box('waiting', { attempts: 1, rounds: 1, next_attempt_at: T + 60_000, last_status: 503, last_error: 'HTTP 503', updated_at: T + 5 }),
        box('leased', { status: 'delivering', rounds: 1, lease_owner: 'p:1', lease_until: T + 120_000, next_attempt_at: T + 120_000 }),
        // Written before payloads were text: the object itself, in the JSON.
        box('dead', { status: 'dead', attempts: 1, rounds: 1, payload: { event_id: 'dead', place: { name: 'Powells' } }, last_status: 410, last_error: 'HTTP 410: the receiver says this endpoint is gone', updated_at: T + 3 }),
        box('ran', { rounds: 0 }),
        box('run_nouser', { user_id: 'test' }),
      ],
      delivery_attempts: [
        { _id: 'a1', event_id: 'delivered', app_id: 'A', attempt: 1, at: T + 6, duration_ms: 9, status_code: 500, outcome: 'retry' },
        { _id: 'a2', event_id: 'waiting', app_id: 'A', attempt: 1, at: T + 5, duration_ms: 10_000, error: 'timeout: no complete response within 10000 ms', outcome: 'retry' },
        { _id: 'a3', event_id: 'dead', app_id: 'A', attempt: 1, at: T + 3, duration_ms: 2, status_code: 410, error: 'HTTP 410: the receiver says this endpoint is gone', outcome: 'dead' },
      ],
    });

    store = await openStore({ kind: 'embedded', dataDir: dir });
    const f = store.firings;
    expect(await f.get('delivered')).toEqual({
      event_id: 'delivered', ...ids, type: 'callback', triggered_on: 'enter', delay_s: 0, date: T, url: 'http://a.test/cb', status: 'delivered',
      attempts: 2, rounds: 1, last_status: 200, delivered_at: T + 8, last_duration_ms: 4, created_at: T, updated_at: T + 9,
    });
    expect(await f.get('waiting')).toMatchObject({ status: 'pending', attempts: 1, rounds: 1, next_attempt_at: T + 60_000, last_error: 'HTTP 503', payload: '{"event_id":"waiting"}' });
    expect(await f.get('leased')).toMatchObject({ status: 'delivering', lease_owner: 'p:1', next_attempt_at: T + 120_000, rounds: 1 });
    expect(JSON.parse((await f.get('dead'))!.payload!)).toEqual({ event_id: 'dead', place: { name: 'Powells' } });
    expect(await f.get('swept')).toMatchObject({ status: 'delivered', attempts: 1, updated_at: T + 2 });
    const message = await f.get('message');
    expect(message).toMatchObject({ type: 'message', triggered_on: 'leave', delay_s: 30 });
    expect(message).not.toHaveProperty('status');
    expect(await f.get('gated:gated')).toMatchObject({ gate: 'rate_limit' });
    expect(await f.get('ran')).toMatchObject({ run: true, status: 'pending' });
    // A callback no history row listed (trigger/run's stand-in user) is still sent, and still not listed.
    expect(await f.get('run_nouser')).toMatchObject({ unlisted: true, status: 'pending', next_attempt_at: T });

    // The delivery log: what was logged, and the attempt that delivered, which the row held.
    expect(await store.attempts.list('delivered')).toEqual([
      { event_id: 'delivered', attempt: 1, app_id: 'A', at: T + 6, duration_ms: 9, status_code: 500, outcome: 'retry' },
      { event_id: 'delivered', attempt: 2, app_id: 'A', at: T + 8, duration_ms: 4, status_code: 200, outcome: 'delivered' },
    ]);
    expect(await store.attempts.list('waiting')).toMatchObject([{ error_class: 'timeout', error: expect.stringMatching(/^timeout/) }]);

    // trigger/history: the same rows in the same order, and each delivery as the older release answered it.
    const listed = await f.history({ app_id: 'A' }, 0, 100);
    expect(listed.map((r) => r.event_id)).toEqual(['dead', 'waiting', 'swept', 'ran', 'message', 'leased', 'delivered']);
    expect(await f.count({ app_id: 'A', gated: true })).toBe(8);
    const answers = Object.fromEntries(listed.map((r) => [r.event_id, deliveryOf(r, r.type === 'message' ? { delivered_at: T + 4 } : undefined, 'UTC')]));
    expect(answers).toEqual({
      delivered: { status: 'delivered', attempts: 2, last_status: 200, delivered_at: isoDate(T + 8), delivered_at_ts: Math.floor((T + 8) / 1000) },
      waiting: { status: 'pending', attempts: 1, last_status: 503, last_error: 'HTTP 503', next_attempt_at: isoDate(T + 60_000), next_attempt_at_ts: Math.floor((T + 60_000) / 1000) },
      leased: { status: 'pending', attempts: 0 },
      dead: { status: 'dead', attempts: 1, last_status: 410, last_error: 'HTTP 410: the receiver says this endpoint is gone' },
      swept: { status: 'delivered', attempts: 1 },
      message: { status: 'delivered', attempts: 0 },
      ran: { status: 'pending', attempts: 0 },
    });

    // The old tables are gone; opening again changes nothing.
    await store.close();
    const db = openDatabase(path.join(dir, DATABASE_FILE));
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    db.close();
    expect(tables).not.toContain('outbox');
    expect(tables).not.toContain('trigger_history');
    expect(tables).not.toContain('delivery_attempts_old');
    store = await openStore({ kind: 'embedded', dataDir: dir });
    expect(await store.firings.count({ app_id: 'A', gated: true })).toBe(8);
    expect(await store.attempts.list('delivered')).toHaveLength(2);
  });
});
