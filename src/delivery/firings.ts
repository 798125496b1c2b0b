// The entry point from the trigger engine into delivery: recordFirings() turns firings into durable
// effects before the engine acknowledges the location update that caused them. Each firing is one
// stored firing (store/firings.ts): its trigger/history entry and, for a callback trigger, its place
// in the outbox with the payload text (a callback trigger never messages the phone, even with
// text); a message trigger's firing also stores the message. Every write is keyed by the event id,
// so replaying a batch after a crash writes nothing twice and completes whatever the first run did
// not. A batch is written in one go (one group-commit turn on the embedded store, however many
// firings), then the delivery loop is signalled. trigger/run goes through performFiring() instead.
import type { ApplicationDoc, LayerDoc, MessageDoc, PlaceDoc, TriggerDoc, UserDoc } from '../store/documents.js';
import type { NewFiring } from '../store/firings.js';
import { deliverMessage, deliverStored, messageDoc, storeMessages, type DeliverResult, type MessageInput } from './inbox.js';
import type { DocCache } from './doc-cache.js';
import type { Firing, GatedFiring } from '../schemas/firing.js';
import { logFirings } from './firing-log.js';
import { gatedFirings } from './gated.js';
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
 * `gated`: firings the gates stopped, stored marked in the same write (nothing is sent for them).
 */
export async function recordFirings(rt: DeliveryRuntime, firings: Firing[], gated: readonly GatedFiring[] = []): Promise<FiringOutcome[]> {
  // All or nothing on bad input: an engine bug must not leave half a batch written.
  for (const f of firings) if (!EVENT_ID_PATTERN.test(f.event_id)) throw new Error(`firing event_id "${f.event_id}" must match ${EVENT_ID_PATTERN}`);
  for (const f of gated) if (!EVENT_ID_PATTERN.test(f.event_id)) throw new Error(`firing event_id "${f.event_id}" must match ${EVENT_ID_PATTERN}`);
  if (firings.length === 0 && gated.length === 0) return [];
  const [resolved, rows] = await Promise.all([Promise.all(firings.map((f) => resolve(rt.docs, f))), gatedFirings(rt, gated)]);
  const bounds = await layerBoundsOf(rt, firings, resolved);
  // Taken in the turn that stores them, with no await in between: the outbox queue reads on from
  // the time of its last read, and a callback stored after that read must not be due before it.
  const now = rt.now();
  for (const g of rows) g.created_at = now;

  // In batch order. A second firing with the same event id is the first one again.
  const outcomes: FiringOutcome[] = [];
  const messages: MessageDoc[] = [];
  const seen = new Set<string>();
  let callbacks = 0;
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
    outcome.duplicate = false;
    const row = firingRow(r, f, now);
    if (action === 'callback') {
      row.url = r.trigger.url;
      // Field by field, not `{ ...r, bounds, ...f }` (docs/architecture.md on spreads in V8 11).
      row.payload = callbackPayloadText({
        app: r.app, user: r.user, trigger: r.trigger, place: r.place, layer: r.layer, bounds: bounds.get(r.layer._id)!,
        event_id: f.event_id, triggered_on: f.triggered_on, delay_s: f.delay_s, at: f.at, location: f.location,
      }, rt.texts);
      row.status = 'pending';
      row.next_attempt_at = now;
      callbacks++;
    } else {
      messages.push(messageDoc(messageOf(r, f), now));
    }
    rows.push(row);
  });

  // Every new firing and message in one write: a replay completes whichever a crash left out.
  const [existing, messageDups] = await Promise.all([rt.store.firings.insert(rows), storeMessages(rt, messages)]);
  for (const o of outcomes) if (o.action !== 'skipped' && (existing.has(o.event_id) || messageDups.has(o.event_id))) o.duplicate = true;
  logFirings(rt.log, rows, existing);
  // The loop reads new callbacks from the store: this is how they reach it.
  if (callbacks > 0 && rows.some((r) => r.status === 'pending' && !existing.has(r.event_id))) rt.dispatcher?.wake();
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
  /** When the service received what caused it (epoch ms). */
  received_at?: number;
  location: FiringPoint;
}

export type Performed =
  | { type: 'callback'; payload: CallbackPayload; duplicate: boolean }
  | { type: 'message'; payload: CallbackPayload; duplicate: boolean; delivered: DeliverResult };

/**
 * The trigger's action for one resolved firing. `history: false` leaves the firing out of
 * trigger/history (trigger/run without a real user); `run` marks it as made by trigger/run.
 */
export async function performFiring(
  rt: DeliveryRuntime,
  r: Resolved,
  e: FiringEvent,
  opts: { history?: boolean; run?: boolean; wake?: boolean; callbackDueAt?: number } = {},
): Promise<Performed> {
  const payload = buildCallbackPayload({ ...r, bounds: await rt.bounds.get(r.app._id, r.layer._id), ...e });
  const now = rt.now();
  const row = firingRow(r, e, now);
  if (opts.run) row.run = true;
  if (opts.history === false) row.unlisted = true;
  if (r.trigger.type === 'callback') {
    row.url = r.trigger.url;
    row.payload = JSON.stringify(payload);
    row.status = 'pending';
    row.next_attempt_at = opts.callbackDueAt ?? now;
  }
  const existing = await rt.store.firings.insert([row]);
  const duplicate = existing.size > 0;
  logFirings(rt.log, [row], existing);
  if (r.trigger.type === 'callback') {
    if (!duplicate && opts.wake !== false) rt.dispatcher?.wake();
    return { type: 'callback', payload, duplicate };
  }
  const delivered = await deliverMessage(rt, messageOf(r, e));
  return { type: 'message', payload, duplicate: duplicate || delivered.duplicate, delivered };
}

/** The firing's own fields, written out (a callback's delivery fields are added by the caller). */
function firingRow(r: Resolved, e: Pick<FiringEvent, 'event_id' | 'triggered_on' | 'delay_s' | 'at' | 'received_at'>, now: number): NewFiring {
  const row: NewFiring = {
    event_id: e.event_id, app_id: r.app._id, user_id: r.user._id, trigger_id: r.trigger._id, place_id: r.place._id, layer_id: r.layer._id,
    type: r.trigger.type, triggered_on: e.triggered_on, delay_s: e.delay_s, date: e.at, created_at: now,
  };
  if (e.received_at !== undefined) row.received_at = e.received_at;
  return row;
}

function messageOf(r: Resolved, e: Pick<FiringEvent, 'event_id' | 'at'>): MessageInput {
  return {
    app_id: r.app._id, user_id: r.user._id, text: r.trigger.text, url: r.trigger.url,
    layer_id: r.layer._id, trigger_id: r.trigger._id, place_id: r.place._id, event_id: e.event_id, date: e.at,
  };
}
