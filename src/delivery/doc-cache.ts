// Caches of the delivery runtime (runtime.ts), one set per runtime: the documents firings and
// callbacks are built from, and the bounds of layers that callback payloads carry. Nothing here is
// the source of truth; every entry can be read again from the store.
import type { ApplicationDoc, LayerDoc, PlaceDoc, TriggerDoc, UserDoc } from '../store/documents.js';
import type { Store } from '../store/store.js';
import { layerBounds, type LayerBounds } from './payload.js';

/** A change to a document the caches hold (the services' change feed publishes these). */
export type DocChange =
  | { kind: 'trigger' | 'place' | 'layer'; op: 'saved' | 'removed'; doc: { _id: string; app_id: string } }
  | { kind: 'user'; op: 'removed'; doc: { _id: string; app_id: string } }
  | { kind: 'subscription' };

const DOCS_TTL_MS = 5_000;
const DOCS_MAX_PER_KIND = 10_000;

interface DocEntry {
  doc: Promise<unknown>;
  /** Monotonic ms after which the store is read again. */
  until: number;
}

/**
 * The application, trigger, place, layer and user documents recordFirings and the dispatcher read
 * on every firing and callback, shared by every call through one runtime. Documents handed out are
 * frozen: every caller shares them.
 *
 * Freshness:
 * - Triggers, places, layers, deleted users: the services publish every change on the change
 *   feed after the store has it, and the entry is dropped then, before the service call returns.
 * - Applications, users, triggers, layers: also every update or delete made through this store
 *   (Store.writes) drops that kind's entries; application and user profile changes are not on the
 *   change feed, so this is how a rotated webhook secret or an edited profile is seen at once.
 *   Places are not watched there: the engine bumps their visit counts on every batch.
 * - Written by another process: seen at the latest DOCS_TTL_MS after the write.
 * - A miss is not kept: a document that appears later is read then.
 * An entry is the read itself, so a read that started before a change and ends after it is never
 * kept (the change dropped its entry), and concurrent callers share one read.
 */
export class DocCache {
  private readonly apps = new Map<string, DocEntry>();
  private readonly triggers = new Map<string, DocEntry>();
  private readonly places = new Map<string, DocEntry>();
  private readonly layers = new Map<string, DocEntry>();
  private readonly users = new Map<string, DocEntry>();

  constructor(private readonly store: Store, private readonly ttlMs = DOCS_TTL_MS, private readonly clock: () => number = () => performance.now()) {
    const byCollection: Record<string, Map<string, DocEntry>> = {
      applications: this.apps, triggers: this.triggers, layers: this.layers, users: this.users,
    };
    store.writes.on(Object.keys(byCollection), (name) => byCollection[name]?.clear());
  }

  app(id: string): Promise<ApplicationDoc | null> {
    return this.get(this.apps, id, () => this.store.applications.get(id));
  }

  trigger(appId: string, id: string): Promise<TriggerDoc | null> {
    return this.get(this.triggers, `${appId}\u0000${id}`, () => this.store.triggers.get(appId, id));
  }

  place(appId: string, id: string): Promise<PlaceDoc | null> {
    return this.get(this.places, `${appId}\u0000${id}`, () => this.store.places.get(appId, id));
  }

  layer(appId: string, id: string): Promise<LayerDoc | null> {
    if (!id) return Promise.resolve(null);
    return this.get(this.layers, `${appId}\u0000${id}`, () => this.store.layers.get(appId, id));
  }

  user(appId: string, id: string): Promise<UserDoc | null> {
    return this.get(this.users, `${appId}\u0000${id}`, () => this.store.users.get(appId, id));
  }

  changed(change: DocChange): void {
    const drop = (map: Map<string, DocEntry>, doc: { app_id: string; _id: string }) => map.delete(`${doc.app_id}\u0000${doc._id}`);
    if (change.kind === 'trigger') drop(this.triggers, change.doc);
    else if (change.kind === 'place') drop(this.places, change.doc);
    else if (change.kind === 'layer') drop(this.layers, change.doc);
    else if (change.kind === 'user') drop(this.users, change.doc);
  }

  private get<T extends object>(map: Map<string, DocEntry>, key: string, load: () => Promise<T | null>): Promise<T | null> {
    const now = this.clock();
    const hit = map.get(key);
    if (hit && hit.until > now) return hit.doc as Promise<T | null>;
    if (map.size >= DOCS_MAX_PER_KIND) {
      // Oldest first (Map keeps insertion order), a tenth at a time so this stays rare.
      let n = DOCS_MAX_PER_KIND / 10;
      for (const k of map.keys()) {
        map.delete(k);
        if (--n <= 0) break;
      }
    }
    const entry: DocEntry = { doc: Promise.resolve(), until: now + this.ttlMs };
    const forget = () => {
      if (map.get(key) === entry) map.delete(key);
    };
    entry.doc = load().then(
      (doc) => {
        if (!doc) forget();
        return doc && deepFreeze(doc);
      },
      (err: unknown) => {
        forget();
        throw err;
      },
    );
    map.delete(key);
    map.set(key, entry);
    return entry.doc as Promise<T | null>;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const BOUNDS_TTL_MS = 30_000;

/**
 * The layer's bounds for the payload, cached: a layer may hold 100,000 places, and reading them
 * stalled the main thread for a noticeable time. The change feed drops them when places change; on
 * the embedded store it sees every change (one process owns the data), so they are kept until
 * then; on MongoDB other processes may write too, so they are read again after BOUNDS_TTL_MS.
 */
export class LayerBoundsCache {
  private readonly bounds = new Map<string, { value: LayerBounds | false; expires: number }>();

  constructor(private readonly store: Store) {}

  async get(appId: string, layerId: string): Promise<LayerBounds | false> {
    const now = Date.now();
    const hit = this.bounds.get(layerId);
    if (hit && hit.expires > now) return hit.value;
    const places = await this.store.places.onLayer(appId, layerId);
    const value = layerBounds(places);
    this.bounds.set(layerId, { value, expires: this.store.engine.kind === 'embedded' ? Infinity : now + BOUNDS_TTL_MS });
    return value;
  }

  /** Places coming, moving or going change bounds: a moved place changes two layers' (the change names only the new one), so all are dropped. */
  changed(change: DocChange): void {
    if (change.kind === 'place') this.bounds.clear();
    if (change.kind === 'layer') this.bounds.delete(change.doc._id);
  }
}
