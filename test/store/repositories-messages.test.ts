// The contract of the repositories of stored messages, message/device payloads and the dwell
// clock's service starts: the embedded engine always, MongoDB whenever MONGODB_URL is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceMessageDoc, MessageDoc } from '../../src/store/documents.js';
import { DuplicateKeyError } from '../../src/store/duplicate-key.js';
import { newId } from '../../src/store/ids.js';
import type { Store } from '../../src/store/store.js';
import { embeddedHarness, mongoHarness, type EngineHarness } from './engines.js';

const ids = (docs: Array<{ _id: string }>) => docs.map((d) => d._id);

function contract(makeHarness: () => Promise<EngineHarness>) {
  let h: EngineHarness;
  let store: Store;
  beforeAll(async () => {
    h = await makeHarness();
    store = await h.open();
  });
  afterAll(async () => {
    await h?.destroy();
  });

  const message = (app: string, date: number, over: Partial<MessageDoc> = {}): MessageDoc => ({ _id: newId(), app_id: app, user_id: 'u', text: 't', url: '', date, ...over });

  it('messages: stored whole and read back exactly, every optional field absent or kept', async () => {
    const A = newId();
    const plain = message(A, 1);
    const full = message(A, 2, {
      url: 'https://x.example/', layer_id: 'L', trigger_id: 'T', place_id: 'P', event_id: 'e1', group_token: 'G',
      data: { mood: 'good', nested: { n: [1, 2] } }, delivered_at: 3, pushed_at: 4,
    });
    await store.messages.insert(plain);
    await store.messages.insert(full);
    expect(await store.messages.get(A, plain._id)).toStrictEqual(plain);
    expect(await store.messages.get(A, full._id)).toStrictEqual(full);
    expect(await store.messages.get(newId(), full._id)).toBeNull();
    await expect(store.messages.insert({ ...plain, app_id: newId() })).rejects.toBeInstanceOf(DuplicateKeyError);
  });

  it('messages: insertNew stores the new ones of a batch and names the ids taken already, of any application', async () => {
    const A = newId();
    const [a, b, c] = [message(A, 1), message(A, 2), message(A, 3)];
    await store.messages.insert(b);
    const foreign = message(newId(), 4);
    await store.messages.insert(foreign);
    expect(await store.messages.insertNew([a, b, c, { ...foreign, app_id: A }])).toEqual(new Set([b._id, foreign._id]));
    expect(ids((await store.messages.page(A, 'u', { offset: 0, limit: 10 })).items)).toEqual([c._id, b._id, a._id]);
    expect(await store.messages.insertNew([])).toEqual(new Set());
  });

  it('messages: the inbox reads, newest first; the first of each trigger; the ones sent through the API', async () => {
    const A = newId();
    const docs = [message(A, 1, { trigger_id: 'T' }), message(A, 5, { trigger_id: 'T' }), message(A, 3), message(A, 4, { user_id: 'v' })];
    for (const d of docs) await store.messages.insert(d);
    expect((await store.messages.page(A, 'u', { offset: 0, limit: 10 })).items.map((x) => x.date)).toEqual([5, 3, 1]);
    expect(await store.messages.page(A, 'u', { offset: 1, limit: 1 })).toEqual({ items: [docs[2]], total: 3 });
    expect(await store.messages.page(newId(), 'u', { offset: 0, limit: 1 })).toEqual({ items: [], total: 0 });
    expect(await store.messages.firstByTrigger(A, 'u', ['T', 'U'])).toEqual(new Map([['T', 1]]));
    expect(await store.messages.firstByTrigger(A, 'u', [])).toEqual(new Map());
    expect((await store.messages.sentDates(A)).sort()).toEqual([3, 4]);
    await store.messages.removeForUser(A, 'v');
    expect(await store.messages.sentDates(A)).toEqual([3]);
  });

  it('messages: the stream queue pages oldest first past a cursor, holding what was undelivered at `since`', async () => {
    const A = newId();
    const user = newId();
    const m = (date: number, id: string, delivered?: number) => message(A, date, { _id: `${user}-${id}`, user_id: user, ...(delivered !== undefined ? { delivered_at: delivered } : {}) });
    const docs = [m(10, 'b'), m(10, 'a'), m(20, 'c', 99), m(30, 'd', 100), m(40, 'e', 101)];
    for (const d of docs) await store.messages.insert(d);
    const queue = async (since: number, after?: MessageDoc, max = 10) => ids(await store.messages.queue(A, user, since, after, max)).map((id) => id.slice(-1));
    // Delivered before `since` is out; at or after it is still in the queue.
    expect(await queue(100)).toEqual(['a', 'b', 'd', 'e']);
    expect(await queue(100, undefined, 2)).toEqual(['a', 'b']);
    expect(await queue(100, docs[1])).toEqual(['b', 'd', 'e']);
    expect(await queue(100, docs[0])).toEqual(['d', 'e']);
    expect(await queue(1_000)).toEqual(['a', 'b']);
    expect(await store.messages.queue(newId(), user, 0, undefined, 10)).toEqual([]);
  });

  it('messages: undelivered ones of several users, any application, oldest first; delivery marked once', async () => {
    const [A, B] = [newId(), newId()];
    const [u, v] = [newId(), newId()];
    const docs = [message(A, 3, { user_id: u }), message(B, 1, { user_id: v }), message(A, 2, { user_id: u, delivered_at: 1 }), message(A, 4, { user_id: newId() })];
    for (const d of docs) await store.messages.insert(d);
    expect(ids(await store.messages.undelivered([u, v], 10))).toEqual([docs[1]!._id, docs[0]!._id]);
    expect(ids(await store.messages.undelivered([u, v], 1))).toEqual([docs[1]!._id]);
    expect(await store.messages.undelivered([], 10)).toEqual([]);
    // Another application's message is, to A, a missing one.
    expect(await store.messages.markDelivered(A, docs[1]!._id, 7)).toBe(false);
    expect(await store.messages.markDelivered(A, docs[0]!._id, 7)).toBe(true);
    expect(await store.messages.markDelivered(A, docs[0]!._id, 8)).toBe(false);
    expect((await store.messages.get(A, docs[0]!._id))!.delivered_at).toBe(7);
    expect(await store.messages.deliveredAt(A, [docs[0]!._id, docs[1]!._id, docs[3]!._id, 'none'])).toEqual(new Map([[docs[0]!._id, 7], [docs[3]!._id, undefined]]));
    expect(await store.messages.deliveredAt(A, [])).toEqual(new Map());
    await store.messages.markPushed(A, docs[3]!._id, 9);
    await store.messages.markPushed(A, docs[1]!._id, 9);
    expect((await store.messages.get(A, docs[3]!._id))!.pushed_at).toBe(9);
    expect((await store.messages.get(B, docs[1]!._id))!.pushed_at).toBeUndefined();
  });

  it('messages: retention removes at most `max` dated before the cutoff; an application takes all of its own', async () => {
    const A = newId();
    const B = newId();
    for (const d of [message(A, -30), message(A, -20), message(B, -10), message(A, 5)]) await store.messages.insert(d);
    expect(await store.messages.removeDatedBefore(-15, 1)).toBe(1);
    expect(await store.messages.removeDatedBefore(-15, 10)).toBe(1);
    expect(await store.messages.removeDatedBefore(-15, 10)).toBe(0);
    expect((await store.messages.page(B, 'u', { offset: 0, limit: 5 })).total).toBe(1);
    await store.messages.removeForApp(A);
    expect((await store.messages.page(A, 'u', { offset: 0, limit: 5 })).total).toBe(0);
    expect((await store.messages.page(B, 'u', { offset: 0, limit: 5 })).total).toBe(1);
  });

  const payload = (app: string, user: string, date: number, over: Partial<DeviceMessageDoc> = {}): DeviceMessageDoc => ({
    _id: newId(), app_id: app, user_id: user, data: { n: date, deep: { list: [1, 'x'] } }, date, expires_at: date + 30, ...over,
  });

  it('device payloads: a user’s waiting ones oldest first, taken once, expired ones removed', async () => {
    const A = newId();
    const [u, v] = [newId(), newId()];
    const [p1, p2, p3, old] = [payload(A, u, 20, { layer_id: 'L' }), payload(A, u, 10), payload(A, v, 15), payload(A, u, 0)];
    for (const p of [p1, p2, p3, old]) await store.deviceMessages.insert(p);
    await expect(store.deviceMessages.insert(p1)).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await store.deviceMessages.waiting(A, u, 30)).toStrictEqual([p2, p1]);
    expect(await store.deviceMessages.waiting(newId(), u, 30)).toEqual([]);
    expect(ids(await store.deviceMessages.waitingOf([u, v], 30, 10))).toEqual([p2._id, p3._id, p1._id]);
    expect(ids(await store.deviceMessages.waitingOf([u, v], 30, 1))).toEqual([p2._id]);
    expect(await store.deviceMessages.waitingOf([], 30, 10)).toEqual([]);
    await store.deviceMessages.removeExpiredOf(A, u, 30);
    expect(ids(await store.deviceMessages.waiting(A, u, 0))).toEqual([p2._id, p1._id]);
    expect(await store.deviceMessages.take(newId(), p2._id)).toBe(false);
    expect(await store.deviceMessages.take(A, p2._id)).toBe(true);
    expect(await store.deviceMessages.take(A, p2._id)).toBe(false);
    expect(ids(await store.deviceMessages.waiting(A, u, 0))).toEqual([p1._id]);
    await store.deviceMessages.removeForUser(A, u);
    expect(await store.deviceMessages.waiting(A, u, 0)).toEqual([]);
    expect(ids(await store.deviceMessages.waiting(A, v, 0))).toEqual([p3._id]);
    await store.deviceMessages.removeForApp(A);
    expect(await store.deviceMessages.waiting(A, v, 0)).toEqual([]);
  });

  it('device payloads: retention removes at most `max` expired at `now`', async () => {
    const A = newId();
    const u = newId();
    for (const p of [payload(A, u, -100), payload(A, u, -90), payload(A, u, 1_000_000)]) await store.deviceMessages.insert(p);
    expect(await store.deviceMessages.removeExpired(-60, 1)).toBe(1);
    expect(await store.deviceMessages.removeExpired(-60, 10)).toBe(1);
    expect(await store.deviceMessages.removeExpired(-60, 10)).toBe(0);
    expect(await store.deviceMessages.waiting(A, u, -200)).toHaveLength(1);
  });

  it('service starts: saved whole, read oldest first, kept over a restart', async () => {
    expect(await store.serviceStarts.load()).toEqual([]);
    await store.serviceStarts.save([5, 9]);
    await store.serviceStarts.save([9, 12, 20]);
    expect(await store.serviceStarts.load()).toEqual([9, 12, 20]);
    store = await h.reopen();
    expect(await store.serviceStarts.load()).toEqual([9, 12, 20]);
    await store.serviceStarts.save([]);
    expect(await store.serviceStarts.load()).toEqual([]);
  });
}

describe('message repositories: embedded engine', () => {
  contract(() => embeddedHarness());
});

describe.skipIf(!process.env.MONGODB_URL)('message repositories: MongoDB engine', () => {
  contract(() => mongoHarness(process.env.MONGODB_URL as string));
});
