// The entry point from the trigger engine into delivery: recordFirings() turns firings into durable
// effects before the engine acknowledges the location update that caused them. For each firing:
// a trigger_history row, then either an outbox row (callback triggers: a callback trigger never
// messages the phone, even with text) or a stored message (message triggers). Every write is keyed
// by the event id, so replaying a batch after a crash writes nothing twice and completes whatever
// the first run did not. A batch is written in bulk: one read of what a first run already wrote,
// then every new row of every collection in one go (one group-commit turn on the embedded store,
// however many firings). trigger/run goes through performFiring() instead.
import type { ApplicationDoc, LayerDoc, MessageDoc, OutboxDoc, PlaceDoc, TriggerDoc, TriggerHistoryDoc, UserDoc } from '../store/documents.js';
import { deliverMessage, deliverStored, messageDoc, type DeliverResult, type MessageInput } from './inbox.js';
import { enqueueCallback, history, insertNew, outbox, outboxDoc, type NewCallback } from './outbox.js';
import type { DocCache } from './doc-cache.js';
import type { Firing, GatedFiring } from '../schemas/firing.js';
import { logFirings } from './firing-log.js';
import { gatedHistory } from './gated.js';
import { buildCallbackPayload, type CallbackPayload, type FiringPoint, type LayerBounds } from './payload.js';
import { callbackPayloadText } from './payload-text.js';
import type { DeliveryRuntime } from './runtime.js';

export type { FiringPoint } from './payload.js';

export type { Firing } from '../schemas/firing.js';

export interface FiringOutcome {
  event_id: string;
  action: 'callback' | 'message' | 'skipped';
  /** Already recorded before (a replay). */
  duplicate: boolean;
  reason?: string;
}

/** Event ids become webhook-id headers and store keys: no '.', which Standard Webhooks forbids. */
export const EVENT_ID_PATTERN = /^[A-Za-z0-9_:-]{1,200}$/;

/**
 * `gated`: firings the gates stopped, written as marked trigger/history rows in the same bulk write
 * (nothing is sent for them).
 */
export async function recordFirings(rt: DeliveryRuntime, firings: Firing[], gated: readonly GatedFiring[] = []): Promise<FiringOutcome[]> {
  // All or nothing on bad input: an engine bug must not leave half a batch written.
  for (const f of [...firings, ...gated]) {
    if (!EVENT_ID_PATTERN.test(f.event_id)) throw new Error(`firing event_id "${f.event_id}" must match ${EVENT_ID_PATTERN}`);
  }
  if (firings.length === 0 && gated.length === 0) return [];
  const [resolved, done, gatedRows] = await Promise.all([
    Promise.all(firings.map((f) => resolve(rt.docs, f))), written(rt, firings, gated), gatedHistory(rt, gated),
  ]);
  const bounds = await layerBoundsOf(rt, firings, resolved);

  // What is missing, in batch order. A second firing with the same event id is the first one again.
  const now = rt.now();
  const outcomes: FiringOutcome[] = [];
  const newHistory: TriggerHistoryDoc[] = gatedRows.filter((d) => !done.history.has(d._id));
  const newOutbox: OutboxDoc[] = [];
  const newMessages: MessageDoc[] = [];
  const messages: MessageDoc[] = [];
  const seen = new Set<string>();
  firings.forEach((f, i) => {
    const r = resolved[i]!;
    if (typeof r === 'string') {
      outcomes.push({ event_id: f.event_id, action: 'skipped', duplicate: false, reason: r });
      return;
    }
    const action = r.trigger.type === 'callback' ? 'callback' : 'message';
    const outcome: FiringOutcome = { event_id: f.event_id, action, duplicate: true };
    outcomes.push(outcome);
    if (seen.has(f.event_id)) return;
    seen.add(f.event_id);
    const e: FiringEvent = { event_id: f.event_id, triggered_on: f.triggered_on, delay_s: f.delay_s, at: f.at, location: f.location };
    const row = done.outbox.get(f.event_id);
    const stored = done.messages.get(f.event_id);
    if (!done.history.has(f.event_id)) {
      // A first run that stored the outbox row or message but not this one: say where that stands.
      newHistory.push(historyDoc(r, e, false, now, row ? deliveryOfCallback(row, now) : stored ? deliveryOfMessage(stored, now) : undefined));
    }
    if (action === 'callback') {
      if (!row) {
        // Field by field, not `{ ...r, bounds, ...e }`: see outboxDoc on spreads in V8 11.
        const payload = callbackPayloadText({
          app: r.app, user: r.user, trigger: r.trigger, place: r.place, layer: r.layer, bounds: bounds.get(r.layer._id)!,
          event_id: e.event_id, triggered_on: e.triggered_on, delay_s: e.delay_s, at: e.at, location: e.location,
        }, rt.texts);
        newOutbox.push(outboxDoc(callbackOf(r, e.event_id, payload), now));
      }
      outcome.duplicate = done.history.has(f.event_id) || row !== undefined;
    } else {
      const message = stored ?? messageDoc(messageOf(r, e), now);
      if (!stored) newMessages.push(message);
      messages.push(message);
      outcome.duplicate = done.history.has(f.event_id) || stored !== undefined;
    }
  });

  // Rows this process will send at once are written already leased to its delivery loop (one write
  // per row fewer); a crash before they are sent leaves them due when the lease runs out.
  if (newOutbox.length > 0 && rt.dispatcher?.offer) rt.dispatcher.leaseNew?.(newOutbox, now);
  // Every new row of every collection at once: nothing here depends on the order between them (a
  // replay completes whichever a crash left out, and a history row written late copies the state).
  const [historyDups, outboxDups, messageDups] = await Promise.all([
    insertNew(history(rt), newHistory), insertNew(outbox(rt), newOutbox), insertNew(rt.store.messages.col, newMessages),
  ]);
  // Rows another writer stored between the read and the insert (only then are these non-empty).
  const raced = new Set([...historyDups, ...outboxDups, ...messageDups]);
  if (raced.size > 0) for (const o of outcomes) if (o.action !== 'skipped' && raced.has(o.event_id)) o.duplicate = true;
  logFirings(rt.log, newHistory, raced);

  const fresh = newOutbox.filter((row) => !outboxDups.has(row._id));
  if (fresh.length > 0 && rt.dispatcher) {
    if (rt.dispatcher.offer) rt.dispatcher.offer(fresh);
    else rt.dispatcher.wake();
  }
  if (messages.length > 0) await deliverMessages(rt, messages, messageDups);
  return outcomes;
}

/** The documents of a firing, or why it has nothing left to deliver (a delete can race the engine). */
async function resolve(docs: DocCache, f: Firing): Promise<Resolved | string> {
  const [app, trigger, place, user] = await Promise.all([
    docs.app(f.app_id), docs.trigger(f.app_id, f.trigger_id), docs.place(f.app_id, f.place_id), docs.user(f.app_id, f.user_id),
  ]);
  const layer = await docs.layer(f.app_id, f.layer_id || place?.layer_id || trigger?.layer_id || '');
  const missing = !app ? 'application' : !trigger ? 'trigger' : !place ? 'place' : !user ? 'user' : !layer ? 'layer' : undefined;
  if (missing) return `${missing} not found`;
  return { app: app!, trigger: trigger!, place: place!, user: user!, layer: layer! };
}

/** What a first run of these event ids already wrote: one query per collection. */
async function written(rt: DeliveryRuntime, firings: Firing[], gated: readonly GatedFiring[]) {
  const ids = [...new Set(firings.map((f) => f.event_id))];
  const q = { _id: { $in: ids } };
  const [h, o, m] = await Promise.all([
    history(rt).find(gated.length === 0 ? q : { _id: { $in: [...ids, ...gated.map((g) => g.event_id)] } }, { projection: { _id: 1 } }).toArray(),
    outbox(rt).find(q, { projection: { _id: 1, status: 1, attempts: 1, last_error: 1 } }).toArray(),
    rt.store.messages.col.find(q).toArray(),
  ]);
  const appOf = new Map(firings.map((f) => [f.event_id, f.app_id]));
  return {
    history: new Set(h.map((d) => d._id)),
    outbox: new Map(o.map((d) => [d._id, d])),
    // Another application's message with this id is not this firing's (its insert will say so).
    messages: new Map(m.filter((d) => d.app_id === appOf.get(d._id)).map((d) => [d._id, d])),
  };
}

/** Bounds of every layer a new callback's payload names (cached by the runtime). */
async function layerBoundsOf(rt: DeliveryRuntime, firings: Firing[], resolved: Array<Resolved | string>) {
  const layers = new Map<string, string>();
  resolved.forEach((r, i) => {
    if (typeof r !== 'string' && r.trigger.type === 'callback') layers.set(r.layer._id, firings[i]!.app_id);
  });
  const bounds = new Map<string, LayerBounds | false>();
  await Promise.all([...layers].map(async ([layerId, appId]) => bounds.set(layerId, await rt.bounds.get(appId, layerId))));
  return bounds;
}

/**
 * Each user's messages in batch order (live stream, then push providers), users side by side. A
 * message some other writer stored first is read back, as deliverMessage would.
 */
async function deliverMessages(rt: DeliveryRuntime, list: MessageDoc[], raced: Set<string>) {
  const perUser = new Map<string, MessageDoc[]>();
  for (const message of list) {
    const k = `${message.app_id}\u0000${message.user_id}`;
    const mine = perUser.get(k);
    if (mine) mine.push(message);
    else perUser.set(k, [message]);
  }
  await Promise.all([...perUser.values()].map(async (messages) => {
    for (let m of messages) {
      if (raced.has(m._id)) {
        const existing = await rt.store.messages.get(m.app_id, m._id);
        if (!existing) throw new Error(`message ${m._id} exists in another application`);
        m = existing;
      }
      await deliverStored(rt, m);
    }
  }));
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

const NO_IDS: ReadonlySet<string> = new Set();

export type Performed =
  | { type: 'callback'; payload: CallbackPayload; duplicate: boolean }
  | { type: 'message'; payload: CallbackPayload; duplicate: boolean; delivered: DeliverResult };

/**
 * The trigger's action for one resolved firing. `history: false` skips the trigger/history row
 * (trigger/run without a real user); `run` marks the row as made by trigger/run.
 */
export async function performFiring(
  rt: DeliveryRuntime,
  r: Resolved,
  e: FiringEvent,
  opts: { history?: boolean; run?: boolean; wake?: boolean; callbackDueAt?: number } = {},
): Promise<Performed> {
  const payload = buildCallbackPayload({ ...r, bounds: await rt.bounds.get(r.app._id, r.layer._id), ...e });
  let duplicate = false;
  if (opts.history !== false) {
    const row = historyDoc(r, e, opts.run ?? false, rt.now());
    duplicate = (await insertNew(history(rt), [row])).size > 0;
    if (!duplicate) logFirings(rt.log, [row], NO_IDS);
  }
  if (r.trigger.type === 'callback') {
    const inserted = await enqueueCallback(rt, callbackOf(r, e.event_id, JSON.stringify(payload)), { wake: opts.wake, dueAt: opts.callbackDueAt });
    return { type: 'callback', payload, duplicate: duplicate || !inserted };
  }
  const delivered = await deliverMessage(rt, messageOf(r, e));
  return { type: 'message', payload, duplicate: duplicate || delivered.duplicate, delivered };
}

function historyDoc(r: Resolved, e: FiringEvent, run: boolean, now: number, delivery?: TriggerHistoryDoc['delivery']): TriggerHistoryDoc {
  return {
    _id: e.event_id, app_id: r.app._id, user_id: r.user._id, trigger_id: r.trigger._id, place_id: r.place._id, layer_id: r.layer._id,
    type: r.trigger.type, triggered_on: e.triggered_on, delay_s: e.delay_s, date: e.at, ...(run ? { run: true } : {}),
    delivery: delivery ?? { status: 'pending', attempts: 0, updated_at: now },
  };
}

function deliveryOfCallback(row: Pick<OutboxDoc, 'status' | 'attempts' | 'last_error'>, now: number): TriggerHistoryDoc['delivery'] {
  return { status: row.status, attempts: row.attempts, ...(row.last_error ? { last_error: row.last_error } : {}), updated_at: now };
}

function deliveryOfMessage(m: MessageDoc, now: number): TriggerHistoryDoc['delivery'] {
  return m.delivered_at !== undefined ? { status: 'delivered', attempts: 0, updated_at: m.delivered_at } : { status: 'pending', attempts: 0, updated_at: now };
}

/** The outbox row's fields; `payload` is the text sent on every attempt. */
function callbackOf(r: Resolved, eventId: string, payload: string): NewCallback {
  return {
    _id: eventId, app_id: r.app._id, trigger_id: r.trigger._id, user_id: r.user._id, place_id: r.place._id,
    layer_id: r.layer._id, url: r.trigger.url, payload,
  };
}

function messageOf(r: Resolved, e: FiringEvent): MessageInput {
  return {
    app_id: r.app._id, user_id: r.user._id, text: r.trigger.text, url: r.trigger.url,
    layer_id: r.layer._id, trigger_id: r.trigger._id, place_id: r.place._id, event_id: e.event_id, date: e.at,
  };
}
