// The contract of the repositories of layers, places, triggers and subscriptions: the embedded
// engine always, MongoDB whenever MONGODB_URL is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LayerDoc, PlaceDoc, SubscriptionDoc, TriggerDoc } from '../../src/store/documents.js';
import { DuplicateKeyError } from '../../src/store/duplicate-key.js';
import { newId } from '../../src/store/ids.js';
import { subscriptionId } from '../../src/store/repos/index.js';
import type { Store } from '../../src/store/store.js';
import { uniqKey, uniqPlaceKey } from '../../src/store/unique-keys.js';
import { embeddedHarness, mongoHarness, type EngineHarness } from './engines.js';

const layer = (appId: string, over: Partial<LayerDoc> = {}): LayerDoc => ({
  _id: newId(), app_id: appId, type: 'normal', name: 'L', description: '', icon: '', url: '', public: 0, public_userlist: 0,
  trigger_rate_limit: 0, extra: {}, created_at: 1, ...over,
});
const place = (appId: string, layerId: string, over: Partial<PlaceDoc> = {}): PlaceDoc => ({
  _id: newId(), app_id: appId, layer_id: layerId, name: 'P', description: '', latitude: 45, longitude: -122, radius: 100, extra: {}, created_at: 1, ...over,
});
const trigger = (appId: string, layerId: string, over: Partial<TriggerDoc> = {}): TriggerDoc => ({
  _id: newId(), app_id: appId, layer_id: layerId, on_layer: false, type: 'message', trigger_on: 'enter', trigger_after: 0, one_time: 0,
  text: 't', url: '', extra: {}, created_at: 1, ...over,
});
const sub = (appId: string, layerId: string, userId: string, at: number): SubscriptionDoc => ({
  _id: subscriptionId(layerId, userId), app_id: appId, layer_id: layerId, user_id: userId, date_subscribed: at,
});

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

  describe('layers', () => {
    it('lists oldest first, the public ones or those named, those with a centre, and finds by key', async () => {
      const A = newId();
      const pub = layer(A, { public: 1, created_at: 3, latitude: 1, longitude: 2, radius: 5 });
      const priv = layer(A, { created_at: 1, key: 'k', uniq_key: uniqKey(A, 'k') });
      const named = layer(A, { created_at: 2 });
      for (const l of [pub, priv, named]) await store.layers.insert(l);
      await store.layers.insert(layer(newId(), { public: 1 }));
      expect(ids(await store.layers.forApp(A))).toEqual([priv._id, named._id, pub._id]);
      expect(ids(await store.layers.publicOr(A, [named._id]))).toEqual([named._id, pub._id]);
      expect(ids(await store.layers.publicOr(A, []))).toEqual([pub._id]);
      expect(ids(await store.layers.many(A, [pub._id, priv._id, 'gone']))).toEqual([priv._id, pub._id]);
      expect(ids(await store.layers.withCentre(A))).toEqual([pub._id]);
      expect(await store.layers.byKey(A, 'k')).toEqual(priv);
      expect(await store.layers.byKey(newId(), 'k')).toBeNull();
      const clash = await store.layers.insert(layer(A, { key: 'k', uniq_key: uniqKey(A, 'k') })).catch((e: unknown) => e);
      expect(clash).toBeInstanceOf(DuplicateKeyError);
    });

    it('finds the longest rate limit of any layer', async () => {
      const before = await store.layers.longestRateLimitS();
      await store.layers.insert(layer(newId(), { trigger_rate_limit: before + 3600 }));
      expect(await store.layers.longestRateLimitS()).toBe(before + 3600);
    });

    it("updates in its own application only, and another application's layer is missing", async () => {
      const A = newId();
      const l = layer(A, { extra: { a: 1, b: 2 } });
      await store.layers.insert(l);
      expect(await store.layers.update(newId(), l._id, { set: { name: 'x' } })).toBeNull();
      expect(await store.layers.get(newId(), l._id)).toBeNull();
      const updated = await store.layers.update(A, l._id, { set: { name: 'renamed' }, extra: { set: { c: 3 }, unset: ['a'] } });
      expect(updated).toMatchObject({ name: 'renamed', extra: { b: 2, c: 3 } });
      expect(await store.layers.remove(newId(), l._id)).toBe(false);
      expect(await store.layers.remove(A, l._id)).toBe(true);
    });
  });

  describe('places', () => {
    const A = newId();
    const L = newId();
    let docs: PlaceDoc[];
    beforeAll(async () => {
      docs = [
        place(A, L, { name: 'b', created_at: 1, visits: 2 }),
        place(A, L, { name: 'a', created_at: 2 }),
        place(A, L, { name: '', created_at: 3, visits: 2 }),
        place(A, L, { name: 'c', created_at: 4, visits: 9, key: 'k', uniq_key: uniqPlaceKey(A, L, 'k') }),
      ];
      for (const p of docs) await store.places.insert(p);
      await store.places.insert(place(newId(), L, { name: 'other app' }));
    });

    it('pages a layer in each order, named, unnamed or all, with the total', async () => {
      const [b, a, unnamed, c] = docs;
      const page = (names: 'all' | 'named' | 'unnamed', order: 'visits' | 'name' | 'recent', offset = 0, limit = 10) =>
        store.places.pageOnLayer(A, L, names, order, { offset, limit });
      expect(ids((await page('named', 'visits')).items)).toEqual([c!._id, b!._id, a!._id]);
      expect(ids((await page('all', 'visits')).items)).toEqual([c!._id, unnamed!._id, b!._id, a!._id]);
      expect(ids((await page('named', 'name')).items)).toEqual([a!._id, b!._id, c!._id]);
      expect(ids((await page('all', 'recent')).items)).toEqual([c!._id, unnamed!._id, a!._id, b!._id]);
      expect(ids((await page('unnamed', 'recent')).items)).toEqual([unnamed!._id]);
      expect(await page('named', 'name', 1, 1)).toEqual({ items: [b], total: 3 });
      expect(ids(await store.places.onLayer(A, L))).toEqual(ids(docs));
      expect(await store.places.firstOnLayer(A, L)).toEqual(b);
      expect(await store.places.byKey(A, L, 'k')).toEqual(c);
    });

    it('counts visits, and removes some of them in its own application only', async () => {
      const [b] = docs;
      await store.places.addVisits(A, b!._id, 3);
      await store.places.addVisits(newId(), b!._id, 100);
      expect((await store.places.get(A, b!._id))?.visits).toBe(5);
      const extra = place(A, L);
      await store.places.insert(extra);
      await store.places.addVisits(A, extra._id, 1);
      expect((await store.places.get(A, extra._id))?.visits).toBe(1);
      expect(await store.places.removeMany(newId(), [extra._id])).toBe(0);
      expect(await store.places.removeMany(A, [extra._id, 'gone'])).toBe(1);
      expect(await store.places.get(A, extra._id)).toBeNull();
    });
  });

  describe('triggers', () => {
    it('lists a place, a layer, its own triggers or its places', async () => {
      const A = newId();
      const L = newId();
      const P = newId();
      const onPlace = trigger(A, L, { place_id: P, created_at: 2 });
      const onLayer = trigger(A, L, { on_layer: true, created_at: 1, key: 'k', uniq_key: uniqKey(A, 'k') });
      const elsewhere = trigger(A, newId(), { place_id: newId(), created_at: 3 });
      for (const t of [onPlace, onLayer, elsewhere]) await store.triggers.insert(t);
      expect(ids(await store.triggers.list(A, { placeId: P }))).toEqual([onPlace._id]);
      expect(ids(await store.triggers.list(A, { layerId: L }))).toEqual([onLayer._id, onPlace._id]);
      expect(ids(await store.triggers.list(A, { layerId: L, on: 'layer' }))).toEqual([onLayer._id]);
      expect(ids(await store.triggers.list(A, { layerId: L, on: 'places' }))).toEqual([onPlace._id]);
      expect(await store.triggers.page(A, { layerId: L }, { offset: 1, limit: 5 })).toEqual({ items: [onPlace], total: 2 });
      expect(ids(await store.triggers.onPlaces(A, [P, elsewhere.place_id!]))).toEqual([onPlace._id, elsewhere._id]);
      expect(ids(await store.triggers.forApp(A))).toEqual([onLayer._id, onPlace._id, elsewhere._id]);
      expect(await store.triggers.byKey(A, 'k')).toEqual(onLayer);
      expect(await store.triggers.list(newId(), { layerId: L })).toEqual([]);
    });

    it("follows its place to another layer, and updates unset fields", async () => {
      const A = newId();
      const P = newId();
      const t = trigger(A, 'old', { place_id: P, date_from: 5 });
      await store.triggers.insert(t);
      await store.triggers.followPlace(A, P, 'new');
      expect((await store.triggers.get(A, t._id))?.layer_id).toBe('new');
      const updated = await store.triggers.update(A, t._id, { set: { text: 'x' }, unset: ['date_from', 'place_id'] });
      expect(updated).not.toHaveProperty('date_from');
      expect(updated).not.toHaveProperty('place_id');
      expect(await store.triggers.removeMany(A, [t._id])).toBe(1);
    });
  });

  describe('subscriptions', () => {
    it('keeps the first subscription, lists a user and a layer, and removes them', async () => {
      const A = newId();
      const L = newId();
      const first = sub(A, L, 'u1', 10);
      expect(await store.subscriptions.add(first)).toEqual(first);
      expect(await store.subscriptions.add(sub(A, L, 'u1', 99))).toEqual(first);
      await store.subscriptions.add(sub(A, 'L2', 'u1', 5));
      await store.subscriptions.add(sub(A, L, 'u2', 20));
      expect((await store.subscriptions.forUser(A, 'u1')).map((s) => s.layer_id)).toEqual(['L2', L]);
      expect((await store.subscriptions.forLayer(A, L)).map((s) => s.user_id)).toEqual(['u1', 'u2']);
      expect(await store.subscriptions.get(newId(), L, 'u1')).toBeNull();
      await store.subscriptions.setSettings(A, L, 'u1', { sound: 'on' });
      expect((await store.subscriptions.get(A, L, 'u1'))?.settings).toEqual({ sound: 'on' });
      expect(await store.subscriptions.remove(A, L, 'u2')).toBe(true);
      expect(await store.subscriptions.remove(A, L, 'u2')).toBe(false);
      await store.subscriptions.removeForLayer(A, L);
      expect(await store.subscriptions.forLayer(A, L)).toEqual([]);
      await store.subscriptions.removeForUser(A, 'u1');
      expect(await store.subscriptions.forUser(A, 'u1')).toEqual([]);
    });
  });
}

describe('structure repositories: embedded engine', () => {
  contract(() => embeddedHarness());
});

describe.skipIf(!process.env.MONGODB_URL)('structure repositories: MongoDB engine', () => {
  contract(() => mongoHarness(process.env.MONGODB_URL as string));
});
