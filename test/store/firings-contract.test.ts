// The repository contract of firings and delivery attempts (store/firings.ts): what recordFirings,
// the outbox queue, the history and retention rely on, checked against the embedded engine always
// and against MongoDB whenever MONGODB_URL is set.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptRecord, FiringRecord, NewFiring } from '../../src/store/firings.js';
import { newId } from '../../src/store/ids.js';
import type { Store } from '../../src/store/store.js';
import { embeddedHarness, mongoHarness, type EngineHarness } from './engines.js';

const T0 = 1_700_000_000_000;

function callback(app: string, over: Partial<NewFiring> = {}): NewFiring {
  const id = `evt_${newId()}`;
  return {
    event_id: id, app_id: app, user_id: 'U1', trigger_id: 'T1', place_id: 'P1', layer_id: 'L1', type: 'callback', triggered_on: 'enter',
    delay_s: 0, date: T0, received_at: T0 + 5, url: 'http://a.test/cb', payload: `{"event_id":"${id}"}`, status: 'pending',
    next_attempt_at: T0, created_at: T0, ...over,
  };
}

const message = (app: string, over: Partial<NewFiring> = {}): NewFiring => {
  const { url: _u, payload: _p, status: _s, next_attempt_at: _n, ...rest } = callback(app, { type: 'message', ...over });
  return { ...rest, ...over };
};

const attempt = (event: string, n: number, over: Partial<AttemptRecord> = {}): AttemptRecord => ({
  event_id: event, attempt: n, app_id: 'A', at: T0 + n, duration_ms: 12, status_code: 500, body: 'busy', outcome: 'retry', ...over,
});

function contract(makeHarness: () => Promise<EngineHarness>) {
  let h: EngineHarness;
  let store: Store;
  let app: string;

  beforeAll(async () => {
    h = await makeHarness();
    store = await h.open();
  });
  afterAll(async () => {
    await h?.destroy();
  });
  // Every test in an application of its own: the queue's reads span applications, so they are
  // checked against what the test itself wrote.
  beforeEach(() => {
    app = `app_${newId()}`;
  });
  const mine = async (now: number) => (await store.firings.dueHeads(now, 10_000)).filter((d) => d.event_id.startsWith('evt_') && d.app_id === app);

  it('stores a firing once and reads it back whole, absent fields absent', async () => {
    const f = callback(app);
    expect(await store.firings.insert([f])).toEqual(new Set());
    expect(await store.firings.insert([f, callback(app, { event_id: f.event_id }), message(app)])).toEqual(new Set([f.event_id]));
    const read = await store.firings.get(f.event_id);
    expect(read).toEqual<FiringRecord>({
      event_id: f.event_id, app_id: app, user_id: 'U1', trigger_id: 'T1', place_id: 'P1', layer_id: 'L1', type: 'callback', triggered_on: 'enter',
      delay_s: 0, date: T0, received_at: T0 + 5, url: 'http://a.test/cb', payload: f.payload!, status: 'pending', attempts: 0, rounds: 0,
      next_attempt_at: T0, created_at: T0, updated_at: T0,
    });
    const m = message(app, { gate: 'rate_limit', run: true, unlisted: true });
    await store.firings.insert([m]);
    expect(await store.firings.get(m.event_id)).toEqual({ ...m, attempts: 0, rounds: 0, updated_at: T0 });
    expect(await store.firings.get('evt_missing')).toBeNull();
  });

  it('hands out due callbacks oldest first, after a given one, and leases each to one owner', async () => {
    const [a, b, c] = [callback(app, { next_attempt_at: T0 + 2 }), callback(app, { next_attempt_at: T0 + 1 }), callback(app, { next_attempt_at: T0 + 50 })];
    await store.firings.insert([a, b, c, message(app)]);
    const due = await mine(T0 + 10);
    expect(due.map((d) => [d.event_id, d.next_attempt_at, d.url])).toEqual([[b.event_id, T0 + 1, 'http://a.test/cb'], [a.event_id, T0 + 2, 'http://a.test/cb']]);
    const after = await store.firings.dueHeads(T0 + 10, 10, { at: T0 + 1, seq: due[0]!.seq });
    expect(after.filter((d) => d.app_id === app).map((d) => d.event_id)).toEqual([a.event_id]);

    const won = await store.firings.leaseDue([a.event_id, b.event_id, c.event_id], 'owner-1', T0 + 1_000, T0 + 10);
    const byId = (id: string) => won.find((l) => l.event_id === id);
    expect(won).toHaveLength(2);
    for (const f of [a, b]) {
      expect(byId(f.event_id)).toEqual({
        event_id: f.event_id, app_id: app, trigger_id: 'T1', user_id: 'U1', url: 'http://a.test/cb', payload: f.payload, attempts: 0, rounds: 1,
        lease_owner: 'owner-1', lease_until: T0 + 1_000, created_at: T0,
      });
    }
    // Leased: not due again, nor leased by another, until the lease runs out.
    expect(await mine(T0 + 10)).toEqual([]);
    expect(await store.firings.leaseDue([a.event_id], 'owner-2', T0 + 2_000, T0 + 20)).toEqual([]);
    expect(await store.firings.get(a.event_id)).toMatchObject({ status: 'delivering', lease_owner: 'owner-1', next_attempt_at: T0 + 1_000 });
    expect((await mine(T0 + 1_000)).map((d) => d.event_id).sort()).toEqual([a.event_id, b.event_id, c.event_id].sort());
    const taken = await store.firings.leaseDue([a.event_id], 'owner-2', T0 + 3_000, T0 + 1_000);
    expect(taken).toMatchObject([{ event_id: a.event_id, lease_owner: 'owner-2', rounds: 2 }]);
    // The first owner's writes no longer land.
    expect(await store.firings.finish(won.find((l) => l.event_id === a.event_id)!, { status: 'delivered', at: T0, durationMs: 1 }, T0)).toBe(false);
    expect(await store.firings.get(a.event_id)).toMatchObject({ status: 'delivering', lease_owner: 'owner-2' });
  });

  it('counts the callbacks still to be sent, in due order up to a limit, with the oldest one\'s time', async () => {
    // A store of its own: the count spans applications.
    const own = await makeHarness();
    try {
      const s = await own.open();
      expect(await s.firings.outbox(100)).toEqual({ waiting: 0, oldestAt: null });
      const [a, b, c, d] = [
        callback(app, { next_attempt_at: T0 + 1, created_at: T0 + 10 }), callback(app, { next_attempt_at: T0 + 2, created_at: T0 + 25 }),
        callback(app, { next_attempt_at: T0 + 3, created_at: T0 + 20 }), callback(app, { next_attempt_at: T0 + 4, created_at: T0 }),
      ];
      await s.firings.insert([a, b, c, d, message(app), message(app, { gate: 'rate_limit' })]);
      // Leased: still to be sent. Delivered: no longer.
      const [la, ld] = await s.firings.leaseDue([a.event_id, d.event_id], 'owner', T0 + 1_000, T0 + 10);
      expect(await s.firings.finish(ld!.event_id === d.event_id ? ld! : la!, { status: 'delivered', at: T0 + 11, durationMs: 1 }, T0 + 11)).toBe(true);
      expect(await s.firings.outbox(100)).toEqual({ waiting: 3, oldestAt: T0 + 10 });
      // The limit bounds the read, in due order (the leased one is due when its lease runs out).
      expect(await s.firings.outbox(1)).toEqual({ waiting: 1, oldestAt: T0 + 25 });
      expect(await s.firings.outbox(2)).toEqual({ waiting: 2, oldestAt: T0 + 20 });
    } finally {
      await own.destroy();
    }
  });

  it('hands out callbacks due at the same time in the order they were stored, whatever their ids', async () => {
    const ids = ['evt_zz', 'evt_aa', 'evt_mm', 'evt_bb'].map((id) => `${id}_${newId()}`);
    await store.firings.insert(ids.slice(0, 2).map((id) => callback(app, { event_id: id, next_attempt_at: T0 + 7 })));
    await store.firings.insert(ids.slice(2).map((id) => callback(app, { event_id: id, next_attempt_at: T0 + 7 })));
    const due = (await mine(T0 + 7)).filter((d) => ids.includes(d.event_id));
    expect(due.map((d) => d.event_id)).toEqual(ids);
    // Read on from the second: the rest, in the same order.
    const on = (await store.firings.dueHeads(T0 + 7, 10_000, { at: due[1]!.next_attempt_at, seq: due[1]!.seq })).filter((d) => ids.includes(d.event_id));
    expect(on.map((d) => d.event_id)).toEqual(ids.slice(2));
  });

  it('leases one callback due or not, and renews a lease its holder still has', async () => {
    const f = callback(app, { next_attempt_at: T0 + 30_000 });
    await store.firings.insert([f]);
    const held = await store.firings.leaseOne(f.event_id, 'run-1', T0 + 60_000, T0);
    expect(held).toMatchObject({ event_id: f.event_id, lease_owner: 'run-1', lease_until: T0 + 60_000, rounds: 1 });
    expect(await store.firings.leaseOne(f.event_id, 'other', T0 + 60_000, T0 + 1)).toBeNull();
    const renewed = await store.firings.leaseOne(f.event_id, 'run-2', T0 + 90_000, T0 + 2, held!);
    expect(renewed).toMatchObject({ lease_owner: 'run-2', lease_until: T0 + 90_000, rounds: 1 });
    expect(await store.firings.leaseOne(f.event_id, 'run-3', T0 + 90_000, T0 + 3, held!)).toBeNull();
    expect(await store.firings.leaseOne(f.event_id, 'late', T0 + 200_000, T0 + 90_000)).toMatchObject({ lease_owner: 'late', rounds: 2 });
  });

  it('records attempts and outcomes only while the lease is held, one attempt entry each', async () => {
    const [ok, retry, dead] = [callback(app), callback(app), callback(app)];
    await store.firings.insert([ok, retry, dead]);
    const leased = await store.firings.leaseDue([ok.event_id, retry.event_id, dead.event_id], 'o', T0 + 100_000, T0);
    const byId = new Map(leased.map((l) => [l.event_id, l]));
    const [lo, lr, ld] = [byId.get(ok.event_id)!, byId.get(retry.event_id)!, byId.get(dead.event_id)!];

    lo.last_status = 500;
    lo.attempts = 1;
    expect(await store.firings.attempted(lo, attempt(ok.event_id, 1))).toBe(true);
    expect(await store.firings.get(ok.event_id)).toMatchObject({ attempts: 1, last_status: 500, updated_at: T0 + 1 });
    lo.attempts = 2;
    lo.last_status = 200;
    expect(await store.firings.finish(lo, { status: 'delivered', at: T0 + 7, durationMs: 9 }, T0 + 8, attempt(ok.event_id, 2, { status_code: 200, outcome: 'delivered', body: 'ok' }))).toBe(true);
    const delivered = await store.firings.get(ok.event_id);
    expect(delivered).toMatchObject({ status: 'delivered', attempts: 2, last_status: 200, delivered_at: T0 + 7, last_duration_ms: 9, updated_at: T0 + 8 });
    // Kept for a redelivery, until retention drops it with the log.
    expect(delivered).toHaveProperty('payload', ok.payload);
    expect(delivered).not.toHaveProperty('next_attempt_at');
    expect(delivered).not.toHaveProperty('lease_owner');
    expect(await store.attempts.list(ok.event_id)).toEqual([attempt(ok.event_id, 1), attempt(ok.event_id, 2, { status_code: 200, outcome: 'delivered', body: 'ok' })]);

    lr.attempts = 1;
    const timeout = attempt(retry.event_id, 1, { status_code: undefined, error_class: 'timeout', error: 'timeout: no answer', body: undefined });
    delete timeout.status_code;
    delete timeout.body;
    expect(await store.firings.finish(lr, { status: 'pending', nextAttemptAt: T0 + 10_000, lastError: 'timeout: no answer' }, T0 + 9, timeout)).toBe(true);
    expect(await store.firings.get(retry.event_id)).toMatchObject({ status: 'pending', next_attempt_at: T0 + 10_000, last_error: 'timeout: no answer', rounds: 1, attempts: 1 });
    expect(await store.firings.get(retry.event_id)).not.toHaveProperty('lease_owner');
    expect(await store.attempts.list(retry.event_id)).toEqual([timeout]);

    ld.attempts = 1;
    expect(await store.firings.finish(ld, { status: 'dead', lastError: 'HTTP 410', dropPayload: false }, T0 + 9, attempt(dead.event_id, 1, { status_code: 410, outcome: 'dead' }))).toBe(true);
    expect(await store.firings.get(dead.event_id)).toMatchObject({ status: 'dead', last_error: 'HTTP 410', payload: dead.payload });
    // A lost lease writes nothing, not even its attempt.
    expect(await store.firings.attempted(lr, attempt(retry.event_id, 2))).toBe(false);
    expect(await store.attempts.list(retry.event_id)).toHaveLength(1);
  });

  it('reopens a finished callback for a redelivery, once, and marks its attempts; pages the log', async () => {
    const [done, waiting] = [callback(app), callback(app)];
    await store.firings.insert([done, waiting]);
    const l = (await store.firings.leaseOne(done.event_id, 'o', T0 + 60_000, T0))!;
    l.attempts = 2;
    await store.firings.attempted(l, attempt(done.event_id, 1));
    await store.firings.finish(l, { status: 'delivered', at: T0 + 7, durationMs: 9 }, T0 + 8, attempt(done.event_id, 2, { status_code: 200, outcome: 'delivered' }));
    // Another application's, one still waiting, or an unknown one: nothing.
    expect(await store.firings.reopen('other', done.event_id, 'api', T0 + 10, T0 + 10)).toBeNull();
    expect(await store.firings.reopen(app, waiting.event_id, 'api', T0 + 10, T0 + 10)).toBeNull();
    expect(await store.firings.reopen(app, 'evt_none', 'api', T0 + 10, T0 + 10)).toBeNull();

    const reopened = await store.firings.reopen(app, done.event_id, 'desk', T0 + 10, T0 + 20);
    expect(reopened).toMatchObject({ status: 'pending', next_attempt_at: T0 + 20, rounds: 0, attempts: 2, redelivery_at: T0 + 10, redelivery_by: 'desk' });
    expect(reopened).not.toHaveProperty('delivered_at');
    // One redelivery at a time.
    expect(await store.firings.reopen(app, done.event_id, 'desk', T0 + 11, T0 + 11)).toBeNull();
    const again = (await store.firings.leaseOne(done.event_id, 'o2', T0 + 60_000, T0 + 20))!;
    expect(again).toMatchObject({ payload: done.payload, attempts: 2, rounds: 1, redelivery_by: 'desk' });
    again.attempts = 3;
    const third = attempt(done.event_id, 3, { status_code: 200, outcome: 'delivered', requested_by: 'desk' });
    await store.firings.finish(again, { status: 'delivered', at: T0 + 30, durationMs: 3 }, T0 + 31, third);
    expect(await store.firings.get(done.event_id)).toMatchObject({ status: 'delivered', delivered_at: T0 + 30, attempts: 3 });
    expect(await store.attempts.page(done.event_id, 1, 5)).toEqual({ attempts: [attempt(done.event_id, 2, { status_code: 200, outcome: 'delivered' }), third], total: 3 });
    expect(await store.attempts.page(done.event_id, 0, 1)).toEqual({ attempts: [attempt(done.event_id, 1)], total: 3 });
  });

  it('hands back and releases leased callbacks: due now, counted as they stand', async () => {
    const [a, b] = [callback(app), callback(app)];
    await store.firings.insert([a, b]);
    const leased = await store.firings.leaseDue([a.event_id, b.event_id], 'o', T0 + 100_000, T0);
    const [la, lb] = [leased.find((l) => l.event_id === a.event_id), leased.find((l) => l.event_id === b.event_id)];
    await store.firings.release([la!], T0 + 5);
    expect(await store.firings.get(a.event_id)).toMatchObject({ status: 'pending', next_attempt_at: T0 + 5, rounds: 0 });
    lb!.attempts = 1;
    await store.firings.handBack(lb!, T0 + 6, attempt(b.event_id, 1));
    expect(await store.firings.get(b.event_id)).toMatchObject({ status: 'pending', next_attempt_at: T0 + 6, rounds: 1, attempts: 1 });
    expect(await store.attempts.list(b.event_id)).toHaveLength(1);
  });

  it('makes waiting callbacks due: a receiver back, a dead process\'s leases, a hold released', async () => {
    const [later, elsewhere, orphan, mineLeased, held] = [
      callback(app, { next_attempt_at: T0 + 60_000, url: 'http://back.test/a' }), callback(app, { next_attempt_at: T0 + 60_000 }),
      callback(app), callback(app), callback(app, { next_attempt_at: T0 + 30_000 }),
    ];
    await store.firings.insert([later, elsewhere, orphan, mineLeased, held]);
    expect(await store.firings.dueAgain(['http://back.test/a'], T0 + 1)).toBe(1);
    expect(await store.firings.get(later.event_id)).toMatchObject({ next_attempt_at: T0 + 1 });
    expect(await store.firings.get(elsewhere.event_id)).toMatchObject({ next_attempt_at: T0 + 60_000 });
    await store.firings.leaseDue([orphan.event_id], 'dead-process:1', T0 + 100_000, T0 + 1);
    await store.firings.leaseDue([mineLeased.event_id], 'this-process:1', T0 + 100_000, T0 + 1);
    expect(await store.firings.orphansDue('this-process:', T0 + 2)).toBeGreaterThanOrEqual(1);
    expect(await store.firings.get(orphan.event_id)).toMatchObject({ status: 'delivering', next_attempt_at: T0 + 2 });
    expect(await store.firings.get(mineLeased.event_id)).toMatchObject({ next_attempt_at: T0 + 100_000 });
    await store.firings.releaseHold(held.event_id, T0 + 29_000, T0 + 3);
    expect(await store.firings.get(held.event_id)).toMatchObject({ next_attempt_at: T0 + 30_000 });
    await store.firings.releaseHold(held.event_id, T0 + 30_000, T0 + 3);
    expect(await store.firings.get(held.event_id)).toMatchObject({ next_attempt_at: T0 + 3 });
  });

  it('cancels a user\'s or a trigger\'s waiting callbacks and follows a trigger\'s new URL', async () => {
    const [u1, u2, t2, t2leased, other] = [
      callback(app), callback(app, { user_id: 'U2', trigger_id: 'T9' }), callback(app, { trigger_id: 'T2' }), callback(app, { trigger_id: 'T2' }),
      callback(`other_${app}`, { trigger_id: 'T2' }),
    ];
    await store.firings.insert([u1, u2, t2, t2leased, other]);
    await store.firings.leaseDue([t2leased.event_id], 'o', T0 + 100_000, T0);
    await store.firings.followUrl(app, 'T2', 'http://new.test/cb', T0 + 4);
    expect(await store.firings.get(t2.event_id)).toMatchObject({ url: 'http://new.test/cb', next_attempt_at: T0 + 4 });
    expect(await store.firings.get(t2leased.event_id)).toMatchObject({ url: 'http://new.test/cb', status: 'delivering', next_attempt_at: T0 + 100_000 });
    expect(await store.firings.get(other.event_id)).toMatchObject({ url: 'http://a.test/cb' });

    expect(await store.firings.cancelWaiting(app, { trigger_id: 'T2' }, 'cancelled: the trigger was deleted', T0 + 5)).toBe(1);
    const cancelled = await store.firings.get(t2.event_id);
    expect(cancelled).toMatchObject({ status: 'dead', last_error: 'cancelled: the trigger was deleted', updated_at: T0 + 5 });
    expect(cancelled).not.toHaveProperty('payload');
    expect(cancelled).not.toHaveProperty('next_attempt_at');
    expect(await store.firings.get(t2leased.event_id)).toMatchObject({ status: 'delivering' });
    expect(await store.firings.get(other.event_id)).toMatchObject({ status: 'pending' });
    expect(await store.firings.cancelWaiting(app, { user_id: 'U2' }, 'cancelled: the user was deleted', T0 + 6)).toBe(1);
    expect(await store.firings.get(u2.event_id)).toMatchObject({ status: 'dead' });
    expect(await store.firings.get(u1.event_id)).toMatchObject({ status: 'pending' });
  });

  it('forgets a user\'s firings and attempts, leaving a round in flight unlisted and without payload', async () => {
    const [done, waiting, leased, kept] = [callback(app), callback(app), callback(app), callback(app, { user_id: 'U2' })];
    await store.firings.insert([done, waiting, leased, kept, message(app)]);
    const [l] = await store.firings.leaseDue([done.event_id], 'o', T0 + 100_000, T0);
    l!.attempts = 1;
    await store.firings.finish(l!, { status: 'delivered', at: T0, durationMs: 1 }, T0, attempt(done.event_id, 1, { outcome: 'delivered', status_code: 200 }));
    await store.firings.leaseDue([leased.event_id], 'o', T0 + 100_000, T0);
    await store.firings.forgetUser(app, 'U1');
    expect(await store.firings.get(done.event_id)).toBeNull();
    expect(await store.firings.get(waiting.event_id)).toBeNull();
    expect(await store.attempts.list(done.event_id)).toEqual([]);
    const inFlight = await store.firings.get(leased.event_id);
    expect(inFlight).toMatchObject({ status: 'delivering', unlisted: true });
    expect(inFlight).not.toHaveProperty('payload');
    expect(await store.firings.count({ app_id: app, gated: true })).toBe(1);
    await store.firings.removeForApp(app);
    expect(await store.firings.get(kept.event_id)).toBeNull();
    expect(await store.firings.get(leased.event_id)).toBeNull();
  });

  it('lists an application\'s history newest first, filtered, paged and counted', async () => {
    const rows = [
      callback(app, { date: T0 + 3, user_id: 'U1' }), message(app, { date: T0 + 3, user_id: 'U2', place_id: 'P2' }),
      callback(app, { date: T0 + 1, trigger_id: 'T2', layer_id: 'L2' }), message(app, { date: T0 + 2, gate: 'rate_limit' }),
      callback(app, { date: T0 + 9, unlisted: true, run: true }), callback(`other_${app}`, { date: T0 + 5 }), callback(app, { date: T0 + 4, run: true }),
    ];
    await store.firings.insert(rows);
    const ids = (fs: FiringRecord[]) => fs.map((f) => f.event_id);
    const byDate = [rows[6]!, ...[rows[0]!, rows[1]!].sort((a, b) => (a.event_id < b.event_id ? 1 : -1)), rows[2]!];
    const page = await store.firings.history({ app_id: app }, 0, 10);
    expect(ids(page)).toEqual(byDate.map((r) => r.event_id));
    expect(page[0]).not.toHaveProperty('payload');
    expect(page[0]).toMatchObject({ run: true, status: 'pending' });
    expect(await store.firings.count({ app_id: app })).toBe(4);
    expect(ids(await store.firings.history({ app_id: app }, 1, 2))).toEqual(byDate.slice(1, 3).map((r) => r.event_id));
    expect(ids(await store.firings.history({ app_id: app, gated: true }, 0, 10))).toContain(rows[3]!.event_id);
    expect(await store.firings.count({ app_id: app, gated: true })).toBe(5);
    expect(ids(await store.firings.history({ app_id: app, user_id: 'U2' }, 0, 10))).toEqual([rows[1]!.event_id]);
    expect(ids(await store.firings.history({ app_id: app, place_id: 'P2' }, 0, 10))).toEqual([rows[1]!.event_id]);
    expect(ids(await store.firings.history({ app_id: app, layer_id: 'L2', trigger_id: 'T2' }, 0, 10))).toEqual([rows[2]!.event_id]);
    expect(await store.firings.count({ app_id: app, trigger_id: 'T3' })).toBe(0);

    const recent = await store.firings.recentForUsers(['U1', 'U2'], T0 + 2);
    expect(recent.filter((r) => rows.some((x) => x.event_id && x.date === r.date)).map((r) => [r.user_id, r.date]).sort()).toEqual(
      expect.arrayContaining([['U1', T0 + 3], ['U2', T0 + 3]]),
    );
    expect(recent.some((r) => r.date === T0 + 4 || r.date === T0 + 9)).toBe(false);
    expect((await store.firings.usage(app)).map((u) => [u.type, u.date]).sort()).toEqual(
      [['callback', T0 + 1], ['callback', T0 + 3], ['message', T0 + 2], ['message', T0 + 3]].sort(),
    );
  });

  it('retention: drops old finished callbacks\' logs and dead payloads, and old firings not waiting to be sent', async () => {
    const DAY = 86_400_000;
    const cutoff = T0 + 30 * DAY;
    const [oldDelivered, oldDead, stillRetrying] = [callback(app), callback(app), callback(app)];
    await store.firings.insert([oldDelivered, oldDead, stillRetrying]);
    const leased = new Map((await store.firings.leaseDue([oldDelivered.event_id, oldDead.event_id, stillRetrying.event_id], 'o', T0 + DAY, T0)).map((l) => [l.event_id, l]));
    leased.get(oldDelivered.event_id)!.attempts = 1;
    await store.firings.finish(leased.get(oldDelivered.event_id)!, { status: 'delivered', at: T0, durationMs: 1 }, T0 + 1, attempt(oldDelivered.event_id, 1, { at: T0, outcome: 'delivered' }));
    leased.get(oldDead.event_id)!.attempts = 1;
    await store.firings.finish(leased.get(oldDead.event_id)!, { status: 'dead', lastError: 'x' }, T0 + 1, attempt(oldDead.event_id, 1, { at: T0, outcome: 'dead' }));
    leased.get(stillRetrying.event_id)!.attempts = 1;
    await store.firings.finish(leased.get(stillRetrying.event_id)!, { status: 'pending', nextAttemptAt: cutoff + DAY, lastError: 'x' }, cutoff + 1, attempt(stillRetrying.event_id, 1, { at: T0 }));

    let swept = { callbacks: 0, attempts: 0 };
    for (let r = await store.firings.sweepDelivery(cutoff, 1); r.callbacks + r.attempts > 0; r = await store.firings.sweepDelivery(cutoff, 1)) {
      swept = { callbacks: swept.callbacks + r.callbacks, attempts: swept.attempts + r.attempts };
    }
    // (Other tests' finished callbacks in this store go too.)
    expect(swept.attempts).toBeGreaterThanOrEqual(2);
    expect(await store.attempts.list(oldDelivered.event_id)).toEqual([]);
    expect(await store.attempts.list(oldDead.event_id)).toEqual([]);
    expect(await store.attempts.list(stillRetrying.event_id)).toHaveLength(1);
    expect(await store.firings.get(oldDead.event_id)).not.toHaveProperty('payload');
    expect(await store.firings.get(oldDelivered.event_id)).toMatchObject({ status: 'delivered' });
    expect(await store.firings.get(oldDelivered.event_id)).not.toHaveProperty('payload');

    const old = message(app, { date: T0 });
    await store.firings.insert([old, message(app, { date: cutoff + 1 })]);
    let removed = 0;
    for (let n = await store.firings.sweepHistory(cutoff, 2); n > 0; n = await store.firings.sweepHistory(cutoff, 2)) removed += n;
    expect(removed).toBeGreaterThanOrEqual(3);
    expect(await store.firings.get(old.event_id)).toBeNull();
    expect(await store.firings.get(oldDelivered.event_id)).toBeNull();
    // Still to be sent: kept, whatever its date.
    expect(await store.firings.get(stillRetrying.event_id)).toMatchObject({ status: 'pending' });
    expect(await store.firings.count({ app_id: app })).toBe(2);
  });

  it('keeps everything over a restart', async () => {
    const f = callback(app);
    await store.firings.insert([f]);
    store = await h.reopen();
    expect(await store.firings.get(f.event_id)).toMatchObject({ event_id: f.event_id, status: 'pending', payload: f.payload });
  });
}

describe('firings repository: embedded engine', () => contract(() => embeddedHarness()));

const mongoUrl = process.env.MONGODB_URL;
describe.skipIf(!mongoUrl)('firings repository: MongoDB', () => contract(() => mongoHarness(mongoUrl!)));
