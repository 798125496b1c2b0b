// The process-local side of delivery for one store: the running dispatcher (so an enqueue can hand
// it the new rows), the live-stream hub, the push providers, pushes still in flight, and caches of
// layer bounds and of the documents firings and callbacks are built from. Keyed by the Store object, so the engine and the routes reach the same runtime through
// the ServiceContext they already hold, without the context having to know about delivery.
// Nothing here is the source of truth: the outbox, messages and history are all in the store.
import type { Change } from '../services/changes.js';
import type { ServiceContext } from '../services/context.js';
import type { ApplicationDoc, DeliveryStatus, LayerDoc, OutboxDoc, PlaceDoc, TriggerDoc, UserDoc } from '../store/documents.js';
import type { Store } from '../store/store.js';
import { LiveHub } from './live-stream.js';
import { layerBounds, type LayerBounds } from './payload.js';
import { providersFromConfig, type PushProviders } from './push/index.js';

export interface DeliveryLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const silent: DeliveryLog = { info() {}, warn() {}, error() {} };

/** How a dispatch round of one callback ended. */
export interface DeliveryReport {
  status: DeliveryStatus;
  attempts: number;
  last_status?: number;
  last_error?: string;
}

/** What the dispatcher exposes to the rest of delivery (dispatcher.ts implements it). */
export interface DispatcherHandle {
  /** Look in the outbox now (rows written without being offered, a hold released). */
  wake(): void;
  /**
   * Rows just inserted and due now: leased and sent without waiting for a poll. Without this
   * method (another kind of handle) the caller wakes the dispatcher instead.
   */
  offer?(rows: OutboxDoc[]): void;
  /**
   * Called with new rows before they are inserted: leases (in the rows themselves) as many as this
   * dispatcher can start at once, so they are written leased and the lease costs no write of its
   * own. They must then be offered once inserted.
   */
  leaseNew?(rows: OutboxDoc[], now: number): void;
  /**
   * Leases one pending row now, even if due later, and runs a single attempt (trigger/run).
   * Null when it could not be leased (another dispatcher has it, or this one is stopping).
   */
  deliverNow(eventId: string): Promise<DeliveryReport | null>;
}

export interface DeliveryRuntime {
  dispatcher?: DispatcherHandle;
  live: LiveHub;
  /** Set by configurePush or loaded from config.push on first use. */
  push?: PushProviders;
  pushLoading?: Promise<PushProviders>;
  /** Pushes handed to providers and not finished; flushPushes() awaits them. */
  pushesInFlight: Set<Promise<void>>;
  log: DeliveryLog;
  bounds: Map<string, { value: LayerBounds | false; expires: number }>;
  docs: DocCache;
}

const runtimes = new WeakMap<Store, DeliveryRuntime>();
const BOUNDS_TTL_MS = 30_000;

export function runtimeOf(ctx: ServiceContext): DeliveryRuntime {
  let rt = runtimes.get(ctx.store);
  if (!rt) {
    // Only on MongoDB can another process store a message behind this one's back: the embedded
    // store has one writer, which pushes every message it stores, so its streams do not poll.
    const livePollMs = ctx.store.engine.kind === 'mongodb' ? 2_000 : 0;
    const created: DeliveryRuntime = { live: new LiveHub(livePollMs), pushesInFlight: new Set(), log: silent, bounds: new Map(), docs: new DocCache(ctx.store) };
    rt = created;
    runtimes.set(ctx.store, created);
    // Places coming, moving or going change bounds: a moved place changes two layers' (the change
    // names only the new one), so all are dropped. The TTL covers other processes on MongoDB.
    // A deleted user's live streams close.
    ctx.changes?.on((change) => {
      if (change.kind === 'place') created.bounds.clear();
      if (change.kind === 'layer') created.bounds.delete(change.doc._id);
      if (change.kind === 'user' && change.op === 'removed') created.live.userRemoved(change.doc.app_id, change.doc._id);
      created.docs.changed(change);
    });
  }
  return rt;
}

export function setDeliveryLog(ctx: ServiceContext, log: DeliveryLog): void {
  runtimeOf(ctx).log = log;
}

/** Replaces the push providers (tests, or an operator wiring a custom provider). */
export function configurePush(ctx: ServiceContext, providers: PushProviders): void {
  const rt = runtimeOf(ctx);
  rt.push = providers;
  rt.pushLoading = undefined;
}

export async function pushProviders(ctx: ServiceContext): Promise<PushProviders> {
  const rt = runtimeOf(ctx);
  if (rt.push) return rt.push;
  rt.pushLoading ??= providersFromConfig(ctx.config.push).catch((err) => {
    rt.log.error({ err }, 'push providers could not be configured; pushes are off');
    return {};
  });
  rt.push = await rt.pushLoading;
  return rt.push;
}

/** Waits for every push started so far (tests, graceful shutdown). */
export async function flushPushes(ctx: ServiceContext): Promise<void> {
  const rt = runtimeOf(ctx);
  while (rt.pushesInFlight.size > 0) await Promise.allSettled([...rt.pushesInFlight]);
}

/**
 * The layer's bounds for the payload, cached: a layer may hold 100,000 places, and reading them
 * stalled the main thread for a noticeable time. The change feed drops them when places change; on
 * the embedded store it sees every change (one process owns the data), so they are kept until
 * then; on MongoDB other processes may write too, so they are read again after BOUNDS_TTL_MS.
 */
export async function cachedLayerBounds(ctx: ServiceContext, appId: string, layerId: string): Promise<LayerBounds | false> {
  const rt = runtimeOf(ctx);
  const now = Date.now();
  const hit = rt.bounds.get(layerId);
  if (hit && hit.expires > now) return hit.value;
  const places = await ctx.store.places.list(appId, { layer_id: layerId } as Partial<PlaceDoc>, { projection: { latitude: 1, longitude: 1, radius: 1 } });
  const value = layerBounds(places);
  rt.bounds.set(layerId, { value, expires: ctx.store.engine.kind === 'embedded' ? Infinity : now + BOUNDS_TTL_MS });
  return value;
}

// ---- documents of firings and callbacks ----------------------------------------------------------

const DOCS_TTL_MS = 5_000;
const DOCS_MAX_PER_KIND = 10_000;

interface DocEntry {
  doc: Promise<unknown>;
  /** Monotonic ms after which the store is read again. */
  until: number;
}

/**
 * The application, trigger, place, layer and user documents recordFirings and the dispatcher read
 * on every firing and callback, shared by every call in this process. Documents handed out are
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
    return this.get(this.apps, id, () => this.store.applications.findOne({ _id: id }));
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

  changed(change: Change): void {
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
