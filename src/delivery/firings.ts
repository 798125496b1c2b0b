// The entry point from the trigger engine into delivery: recordFirings() turns firings into durable
// effects before the engine acknowledges the location update that caused them. For each firing:
// a trigger_history row, then either an outbox row (callback triggers: a callback trigger never
// messages the phone, even with text) or a stored message (message triggers). Every write is
// awaited and keyed by the event id, so replaying a batch after a crash writes nothing twice and
// completes whatever the first run did not. trigger/run goes through performFiring() too.
import type { ServiceContext } from '../services/context.js';
import type { ApplicationDoc, LayerDoc, PlaceDoc, TriggerDoc, TriggerHistoryDoc, UserDoc } from '../store/documents.js';
import { isDuplicateKeyError } from '../store/duplicate-key.js';
import { deliverMessage, type DeliverResult } from './inbox.js';
import { enqueueCallback, history } from './outbox.js';
import { buildCallbackPayload, type CallbackPayload, type FiringPoint } from './payload.js';
import { cachedLayerBounds, runtimeOf } from './runtime.js';

export type { FiringPoint } from './payload.js';

export interface Firing {
  /** Stable id of this firing, chosen by the engine (deterministic, so a replay reuses it). */
  event_id: string;
  app_id: string;
  user_id: string;
  trigger_id: string;
  place_id: string;
  layer_id: string;
  triggered_on: 'enter' | 'leave';
  /** Seconds of dwell before the firing (trigger_after for a dwell trigger, else 0). */
  delay_s: number;
  /** Epoch ms of the firing (the point's time, or the dwell deadline). */
  at: number;
  /** The point that caused it (for a dwell deadline, the last point inside). */
  location: FiringPoint;
}

export interface FiringOutcome {
  event_id: string;
  action: 'callback' | 'message' | 'skipped';
  /** Already recorded before (a replay). */
  duplicate: boolean;
  reason?: string;
}

/** Event ids become webhook-id headers and store keys: no '.', which Standard Webhooks forbids. */
export const EVENT_ID_PATTERN = /^[A-Za-z0-9_:-]{1,200}$/;

export async function recordFirings(ctx: ServiceContext, firings: Firing[]): Promise<FiringOutcome[]> {
  // All or nothing on bad input: an engine bug must not leave half a batch written.
  for (const f of firings) {
    if (!EVENT_ID_PATTERN.test(f.event_id)) throw new Error(`firing event_id "${f.event_id}" must match ${EVENT_ID_PATTERN}`);
  }
  const docs = new DocCache(ctx);
  const outcomes: FiringOutcome[] = [];
  let enqueued = false;
  // In order, one at a time: firings of one user stay in the order the engine produced them.
  for (const f of firings) {
    const [app, trigger, place, user] = await Promise.all([
      docs.app(f.app_id), docs.trigger(f.app_id, f.trigger_id), docs.place(f.app_id, f.place_id), docs.user(f.app_id, f.user_id),
    ]);
    const layer = await docs.layer(f.app_id, f.layer_id || place?.layer_id || trigger?.layer_id || '');
    // A delete can race the engine; a firing of something deleted has nothing left to deliver.
    const missing = !app ? 'application' : !trigger ? 'trigger' : !place ? 'place' : !user ? 'user' : !layer ? 'layer' : undefined;
    if (missing) {
      outcomes.push({ event_id: f.event_id, action: 'skipped', duplicate: false, reason: `${missing} not found` });
      continue;
    }
    const res = await performFiring(ctx, { app: app!, trigger: trigger!, place: place!, user: user!, layer: layer! }, {
      event_id: f.event_id, triggered_on: f.triggered_on, delay_s: f.delay_s, at: f.at, location: f.location,
    }, { wake: false });
    if (res.type === 'callback' && !res.duplicate) enqueued = true;
    outcomes.push({ event_id: f.event_id, action: res.type, duplicate: res.duplicate });
  }
  if (enqueued) runtimeOf(ctx).dispatcher?.wake();
  return outcomes;
}

export interface Resolved {
  app: ApplicationDoc;
  trigger: TriggerDoc;
  place: PlaceDoc;
  layer: LayerDoc;
  user: UserDoc;
}

export interface FiringEvent {
  event_id: string;
  triggered_on: 'enter' | 'leave';
  delay_s: number;
  at: number;
  location: FiringPoint;
}

export type Performed =
  | { type: 'callback'; payload: CallbackPayload; duplicate: boolean }
  | { type: 'message'; payload: CallbackPayload; duplicate: boolean; delivered: DeliverResult };

/**
 * The trigger's action for one resolved firing. `history: false` skips the trigger/history row
 * (trigger/run without a real user); `run` marks the row as made by trigger/run.
 */
export async function performFiring(
  ctx: ServiceContext,
  r: Resolved,
  e: FiringEvent,
  opts: { history?: boolean; run?: boolean; wake?: boolean; callbackDueAt?: number } = {},
): Promise<Performed> {
  const payload = buildCallbackPayload({
    app: r.app, user: r.user, trigger: r.trigger, place: r.place, layer: r.layer,
    bounds: await cachedLayerBounds(ctx, r.app._id, r.layer._id),
    event_id: e.event_id, triggered_on: e.triggered_on, delay_s: e.delay_s, at: e.at, location: e.location,
  });
  let duplicate = false;
  if (opts.history !== false) duplicate = !(await insertHistory(ctx, r, e, opts.run ?? false));
  if (r.trigger.type === 'callback') {
    const inserted = await enqueueCallback(ctx, {
      _id: e.event_id, app_id: r.app._id, trigger_id: r.trigger._id, user_id: r.user._id, place_id: r.place._id,
      layer_id: r.layer._id, url: r.trigger.url, payload: payload as unknown as Record<string, unknown>,
    }, { wake: opts.wake, dueAt: opts.callbackDueAt });
    return { type: 'callback', payload, duplicate: duplicate || !inserted };
  }
  const delivered = await deliverMessage(ctx, {
    app_id: r.app._id, user_id: r.user._id, text: r.trigger.text, url: r.trigger.url,
    layer_id: r.layer._id, trigger_id: r.trigger._id, place_id: r.place._id, event_id: e.event_id, date: e.at,
  });
  return { type: 'message', payload, duplicate: duplicate || delivered.duplicate, delivered };
}

async function insertHistory(ctx: ServiceContext, r: Resolved, e: FiringEvent, run: boolean): Promise<boolean> {
  const doc: TriggerHistoryDoc = {
    _id: e.event_id, app_id: r.app._id, user_id: r.user._id, trigger_id: r.trigger._id, place_id: r.place._id, layer_id: r.layer._id,
    type: r.trigger.type, triggered_on: e.triggered_on, delay_s: e.delay_s, date: e.at, ...(run ? { run: true } : {}),
    delivery: { status: 'pending', attempts: 0, updated_at: ctx.now() },
  };
  try {
    await history(ctx).insertOne(doc);
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

/** Per-call lookups: a batch often names the same trigger, place and layer many times. */
class DocCache {
  private readonly cache = new Map<string, Promise<unknown>>();
  constructor(private readonly ctx: ServiceContext) {}

  private get<T>(k: string, load: () => Promise<T | null>): Promise<T | null> {
    let p = this.cache.get(k) as Promise<T | null> | undefined;
    if (!p) this.cache.set(k, (p = load()));
    return p;
  }

  app = (id: string) => this.get(`a:${id}`, () => this.ctx.store.applications.findOne({ _id: id }));
  trigger = (appId: string, id: string) => this.get(`t:${appId}:${id}`, () => this.ctx.store.triggers.get(appId, id));
  place = (appId: string, id: string) => this.get(`p:${appId}:${id}`, () => this.ctx.store.places.get(appId, id));
  layer = (appId: string, id: string) => this.get(`l:${appId}:${id}`, () => (id ? this.ctx.store.layers.get(appId, id) : Promise.resolve(null)));
  user = (appId: string, id: string) => this.get(`u:${appId}:${id}`, () => this.ctx.store.users.get(appId, id));
}
