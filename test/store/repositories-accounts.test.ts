// The contract of the repositories of applications, tokens, authorization codes, API hits and
// users: the embedded engine always, MongoDB whenever MONGODB_URL is set. One suite, two engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenDoc } from '../../src/store/documents.js';
import { DuplicateKeyError } from '../../src/store/duplicate-key.js';
import { newId } from '../../src/store/ids.js';
import type { Store } from '../../src/store/store.js';
import { uniqEmail, uniqKey, uniqUsername } from '../../src/store/unique-keys.js';
import { appDoc, userDoc } from './docs.js';
import { embeddedHarness, mongoHarness, type EngineHarness } from './engines.js';

const token = (appId: string, kind: TokenDoc['kind'], userId?: string): TokenDoc => ({
  _id: newId(), kind, app_id: appId, ...(userId ? { user_id: userId } : {}), expires_at: null, created_at: 1,
});

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

function contract(makeHarness: () => Promise<EngineHarness>) {
  let h: EngineHarness;
  let store: Store;
  const written: string[] = [];

  beforeAll(async () => {
    h = await makeHarness();
    store = await h.open();
    store.writes.on(['applications', 'users', 'tokens'], (name) => written.push(name));
  });
  afterAll(async () => {
    await h?.destroy();
  });

  describe('applications', () => {
    it('finds by id and client_id, lists oldest first, and refuses a second client_id', async () => {
      const a = appDoc({ created_at: 20 });
      const b = appDoc({ created_at: 10 });
      await store.applications.insert(a);
      await store.applications.insert(b);
      expect(await store.applications.get(a._id)).toEqual(a);
      expect(await store.applications.byClientId(b.client_id)).toEqual(b);
      expect(await store.applications.get('nope')).toBeNull();
      const ids = (await store.applications.all()).map((x) => x._id);
      expect(ids.indexOf(b._id)).toBeLessThan(ids.indexOf(a._id));
      expect(await caught(store.applications.insert(appDoc({ client_id: a.client_id })))).toBeInstanceOf(DuplicateKeyError);
    });

    it('updates set and unset fields, answers the new document, and reports the write', async () => {
      const a = appDoc({ previous_webhook_secret: 'old', previous_webhook_secret_until: 5 });
      await store.applications.insert(a);
      written.length = 0;
      const updated = await store.applications.update(a._id, { set: { name: 'renamed' }, unset: ['previous_webhook_secret', 'previous_webhook_secret_until'] });
      expect(updated).toEqual({ ...a, name: 'renamed', previous_webhook_secret: undefined, previous_webhook_secret_until: undefined });
      expect(updated).not.toHaveProperty('previous_webhook_secret');
      expect(await store.applications.get(a._id)).toEqual(updated);
      expect(written).toContain('applications');
      expect(await store.applications.update('missing', { set: { name: 'x' } })).toBeNull();
      expect(await store.applications.remove(a._id)).toBe(true);
      expect(await store.applications.remove(a._id)).toBe(false);
    });
  });

  describe('tokens', () => {
    it('spends a token once, and revokes by application, user and kind', async () => {
      const appId = newId();
      const [app, appRefresh, user, userRefresh] = [token(appId, 'app'), token(appId, 'refresh'), token(appId, 'user', 'u1'), token(appId, 'refresh', 'u1')];
      const other = token(newId(), 'app');
      for (const t of [app, appRefresh, user, userRefresh, other]) await store.tokens.insert(t);
      expect(await store.tokens.get(user._id)).toEqual(user);
      await store.tokens.removeAppTokens(appId);
      expect(await store.tokens.get(app._id)).toBeNull();
      expect(await store.tokens.get(appRefresh._id)).toBeNull();
      expect(await store.tokens.get(user._id)).toEqual(user);
      expect(await store.tokens.get(userRefresh._id)).toEqual(userRefresh);
      expect(await store.tokens.remove(userRefresh._id)).toBe(true);
      expect(await store.tokens.remove(userRefresh._id)).toBe(false);
      await store.tokens.removeForUser('u1');
      expect(await store.tokens.get(user._id)).toBeNull();
      const many = [token(appId, 'app'), token(appId, 'app')];
      for (const t of many) await store.tokens.insert(t);
      await store.tokens.removeMany(many.map((t) => t._id));
      for (const t of many) expect(await store.tokens.get(t._id)).toBeNull();
      expect(await store.tokens.get(other._id)).toEqual(other);
      await store.tokens.removeForApp(other.app_id);
      expect(await store.tokens.get(other._id)).toBeNull();
    });
  });

  describe('authorization codes', () => {
    it('claims a code once, and sweeps expired codes a bounded number at a time', async () => {
      const appId = newId();
      const code = (expires: number) => ({ _id: newId(), app_id: appId, user_id: 'u', redirect_uri: 'x:/', redirect_uri_sent: false, used: false, expires_at: expires, created_at: 0 });
      const live = code(10_000);
      await store.authCodes.insert(live);
      expect(await store.authCodes.claim(live._id, ['t1'])).toBe(true);
      expect(await store.authCodes.claim(live._id, ['t2'])).toBe(false);
      expect(await store.authCodes.get(live._id)).toMatchObject({ used: true, token_ids: ['t1'] });
      for (let i = 0; i < 5; i++) await store.authCodes.insert(code(100 + i));
      expect(await store.authCodes.removeExpiredBefore(1_000, 3)).toBe(3);
      expect(await store.authCodes.removeExpiredBefore(1_000, 3)).toBe(2);
      expect(await store.authCodes.removeExpiredBefore(1_000, 3)).toBe(0);
      expect(await store.authCodes.get(live._id)).not.toBeNull();
    });
  });

  describe('API hits', () => {
    it('keeps each process document whole, replaced by its next flush', async () => {
      const appId = newId();
      await store.apiHits.save([{ _id: `${appId}:2026-01-01:n1`, app_id: appId, day: '2026-01-01', hits: 3 }]);
      await store.apiHits.save([{ _id: `${appId}:2026-01-01:n1`, app_id: appId, day: '2026-01-01', hits: 5 }, { _id: `${appId}:2026-01-02:n2`, app_id: appId, day: '2026-01-02', hits: 1 }]);
      const hits = (await store.apiHits.forApp(appId)).sort((a, b) => a.day.localeCompare(b.day));
      expect(hits).toEqual([{ day: '2026-01-01', hits: 5 }, { day: '2026-01-02', hits: 1 }]);
      await store.apiHits.removeForApp(appId);
      expect(await store.apiHits.forApp(appId)).toEqual([]);
    });
  });

  describe('users', () => {
    const A = newId();
    const B = newId();

    it('usernames and emails are unique per application in any case; keys are unique and sparse', async () => {
      const alice = userDoc(A, 'Alice', { email: 'a@x.org', uniq_email: uniqEmail(A, 'a@x.org') });
      await store.users.insert(alice);
      expect(await caught(store.users.insert(userDoc(A, 'ALICE')))).toBeInstanceOf(DuplicateKeyError);
      expect(await caught(store.users.insert(userDoc(A, 'other', { email: 'A@X.org', uniq_email: uniqEmail(A, 'A@X.org') })))).toBeInstanceOf(DuplicateKeyError);
      await store.users.insert(userDoc(B, 'alice'));
      expect(await store.users.byUsername(A, 'aLiCe')).toEqual(alice);
      expect(await store.users.byEmail(A, 'A@x.ORG')).toEqual(alice);
      expect((await store.users.byUsername(B, 'alice'))?.app_id).toBe(B);
      await store.users.insert(userDoc(A, 'nokey1'));
      await store.users.insert(userDoc(A, 'nokey2'));
      const keyed = userDoc(A, 'keyed', { key: 'k1', uniq_key: uniqKey(A, 'k1') });
      await store.users.insert(keyed);
      expect(await caught(store.users.insert(userDoc(A, 'keyed2', { key: 'k1', uniq_key: uniqKey(A, 'k1') })))).toBeInstanceOf(DuplicateKeyError);
      expect(await store.users.byKey(A, 'k1')).toEqual(keyed);
      expect(await store.users.byKey(B, 'k1')).toBeNull();
    });

    it('concurrent inserts of one key: exactly one wins', async () => {
      const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.users.insert(userDoc(A, `racer${i}`, { key: 'race', uniq_key: uniqKey(A, 'race') }))));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DuplicateKeyError);
    });

    it("another application's user is a missing one, to read and to write", async () => {
      const u = userDoc(A, 'scoped', { name: 'original' });
      await store.users.insert(u);
      expect(await store.users.get(B, u._id)).toBeNull();
      expect(await store.users.update(B, u._id, { set: { name: 'hijacked' } })).toBeNull();
      expect(await store.users.remove(B, u._id)).toBe(false);
      expect(await store.users.many(B, [u._id])).toEqual([]);
      expect(await store.users.get(A, u._id)).toMatchObject({ name: 'original' });
    });

    it('pages oldest first with the total, and finds many by id', async () => {
      const C = newId();
      const docs = [30, 10, 20].map((at, i) => userDoc(C, `p${i}`, { created_at: at }));
      for (const d of docs) await store.users.insert(d);
      const page = await store.users.page(C, { offset: 1, limit: 1 });
      expect(page).toEqual({ items: [docs[2]], total: 3 });
      expect((await store.users.page(C, { offset: 0, limit: 10 })).items.map((u) => u.created_at)).toEqual([10, 20, 30]);
      expect(await store.users.page(C, { offset: 2 ** 64, limit: 10 })).toEqual({ items: [], total: 3 });
      expect((await store.users.many(C, [docs[0]!._id, 'missing', docs[1]!._id])).map((u) => u._id).sort()).toEqual([docs[0]!._id, docs[1]!._id].sort());
      expect((await store.users.ids(C)).sort()).toEqual(docs.map((d) => d._id).sort());
      expect((await store.users.forApp(C)).map((u) => u.created_at)).toEqual([10, 20, 30]);
    });

    it('updates fields and extra keys one by one; a clash changes nothing', async () => {
      const u = userDoc(A, 'bob', { extra: { keep: 1, drop: 2 } });
      await store.users.insert(u);
      written.length = 0;
      const updated = await store.users.update(A, u._id, { set: { bio: 'hi' }, extra: { set: { added: { deep: true } }, unset: ['drop'] } });
      expect(updated).toMatchObject({ bio: 'hi', extra: { keep: 1, added: { deep: true } } });
      expect(updated!.extra).not.toHaveProperty('drop');
      expect(written).toContain('users');
      const err = await caught(store.users.update(A, u._id, { set: { username: 'alice', uniq_username: uniqUsername(A, 'alice') } }));
      expect(err).toBeInstanceOf(DuplicateKeyError);
      expect((await store.users.get(A, u._id))?.username).toBe('bob');
    });

    it('a push token is in one list at a time, and parallel registrations all stay', async () => {
      const u = userDoc(A, 'phone');
      await store.users.insert(u);
      await store.users.addDevice(A, u._id, 'apns_live', 't1');
      await store.users.addDevice(A, u._id, 'apns_dev', 't1');
      await Promise.all(['a', 'b', 'c', 'd'].map((t) => store.users.addDevice(A, u._id, 'gcm', t)));
      await store.users.addDevice(A, u._id, 'gcm', 'a');
      const devices = (await store.users.get(A, u._id))!.devices;
      expect(devices.apns_live).toEqual([]);
      expect(devices.apns_dev).toEqual(['t1']);
      expect([...devices.gcm].sort()).toEqual(['a', 'b', 'c', 'd']);
      await store.users.removeDevice(A, u._id, 'gcm', 'b');
      expect([...(await store.users.get(A, u._id))!.devices.gcm].sort()).toEqual(['a', 'c', 'd']);
    });

    it('keeps what was written across a reopen, unique indexes too', async () => {
      const u = userDoc(A, 'durable');
      await store.users.insert(u);
      await store.users.update(A, u._id, { set: { bio: 'before close' } });
      store = await h.reopen();
      expect(await store.users.get(A, u._id)).toMatchObject({ username: 'durable', bio: 'before close' });
      expect(await caught(store.users.insert(userDoc(A, 'DURABLE')))).toBeInstanceOf(DuplicateKeyError);
      await store.users.removeForApp(A);
      expect(await store.users.get(A, u._id)).toBeNull();
    });
  });
}

describe('account repositories: embedded engine', () => {
  contract(() => embeddedHarness());
});

describe.skipIf(!process.env.MONGODB_URL)('account repositories: MongoDB engine', () => {
  contract(() => mongoHarness(process.env.MONGODB_URL as string));
});
