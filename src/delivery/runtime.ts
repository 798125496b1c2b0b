// The process-local side of delivery for one store: the running dispatcher (so an enqueue can wake
// it), the live-stream hub, the push providers, pushes still in flight, and a cache of layer
// bounds. Keyed by the Store object, so the engine and the routes reach the same runtime through
// the ServiceContext they already hold, without the context having to know about delivery.
// Nothing here is the source of truth: the outbox, messages and history are all in the store.
import type { ServiceContext } from '../services/context.js';
import type { DeliveryStatus, PlaceDoc } from '../store/documents.js';
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
  wake(): void;
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
}

const runtimes = new WeakMap<Store, DeliveryRuntime>();
const BOUNDS_TTL_MS = 30_000;

export function runtimeOf(ctx: ServiceContext): DeliveryRuntime {
  let rt = runtimes.get(ctx.store);
  if (!rt) {
    const created: DeliveryRuntime = { live: new LiveHub(), pushesInFlight: new Set(), log: silent, bounds: new Map() };
    rt = created;
    runtimes.set(ctx.store, created);
    // Places moving or disappearing change their layer's bounds; the TTL covers other processes.
    ctx.changes?.on((change) => {
      if (change.kind === 'place') created.bounds.delete(change.doc.layer_id);
      if (change.kind === 'layer') created.bounds.delete(change.doc._id);
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

/** The layer's bounds for the payload, cached briefly: a layer may hold thousands of places. */
export async function cachedLayerBounds(ctx: ServiceContext, appId: string, layerId: string): Promise<LayerBounds | false> {
  const rt = runtimeOf(ctx);
  const now = Date.now();
  const hit = rt.bounds.get(layerId);
  if (hit && hit.expires > now) return hit.value;
  const places = await ctx.store.places.list(appId, { layer_id: layerId } as Partial<PlaceDoc>, { projection: { latitude: 1, longitude: 1, radius: 1 } });
  const value = layerBounds(places);
  rt.bounds.set(layerId, { value, expires: now + BOUNDS_TTL_MS });
  return value;
}
