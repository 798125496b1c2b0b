// Triggers (reference §4.1, §6.1–6.5, §7 items 1–5, 12): a message or callback fired on entering,
// leaving or dwelling, attached to one place, to a whole layer, or to a place created in the same
// call. Everything is validated before the first write; a failed trigger insert takes back the
// place it created.
import { followTriggerUpdate } from '../delivery/queued-callbacks.js';
import { assertNewCallbackTarget } from '../delivery/ssrf-guard.js';
import { apiError, notFound } from '../errors.js';
import type { Extra, Flag, PlaceDoc, TriggerDoc } from '../store/documents.js';
import { newId } from '../store/ids.js';
import type { Changes, ExtraKeys } from '../store/changes.js';
import { DuplicateKeyError } from '../store/duplicate-key.js';
import type { TriggerScope } from '../store/repos/index.js';
import { uniqKey } from '../store/unique-keys.js';
import type { ServiceContext } from './context.js';
import { triggerObject, type Created } from './geo-objects.js';
import { layerVisible, requireVisibleLayer } from './layers.js';
import { pageRequest, pagingObject } from './paging.js';
import { insertPlace, placeByKey, preparePlace, requirePlace } from './places.js';
import { removeTriggers } from './removal.js';
import { requireLayer } from './subscriptions.js';
import { placing } from './structure-lock.js';
import { windowChange, type WindowInput } from './validity-window.js';
import type { Viewer } from './viewer.js';
import { mergeExtra } from './extra-merge.js';

export type TriggerType = TriggerDoc['type'];
/** `exit` is accepted for `leave` (the seed's prose says "exits"; reference §6.1). */
export type TriggerOnInput = 'enter' | 'leave' | 'exit';

export interface TriggerFields extends WindowInput {
  key?: string;
  type?: TriggerType;
  text?: string;
  url?: string;
  /** Older name of `url` (MapAttack; reference §4.1). */
  callback?: string;
  trigger_on?: TriggerOnInput;
  /** Dwell seconds of an enter trigger; 0, "" and null are no dwell. */
  trigger_after?: number | null;
  /** 0/1 or a boolean (reference §1). */
  one_time?: number | boolean;
  extra?: Extra;
  place_id?: string;
  layer_id?: string;
}

/** Fields that create a place inline (reference §4.1 "Inline place creation"). */
export interface InlinePlaceFields {
  latitude?: number;
  longitude?: number;
  radius?: number;
  span_longitude?: number;
  geocode?: string;
  /** A polygon or corridor instead of the circle (services/place-shape.ts). */
  geometry?: unknown;
  width?: number;
  place_name?: string;
  place_description?: string;
  place_extra?: Extra;
  place_layer_id?: string;
  place_key?: string;
}

export type TriggerInput = TriggerFields & InlinePlaceFields;

const INLINE_FIELDS: Array<keyof InlinePlaceFields> = [
  'latitude', 'longitude', 'radius', 'span_longitude', 'geocode', 'geometry', 'width', 'place_name', 'place_description', 'place_extra', 'place_layer_id', 'place_key',
];

const flag = (v: number | boolean): Flag => (v === true || v === 1 ? 1 : 0);
/** Newlines are removed from message text (reference §4.1). */
const cleanText = (s: string) => s.replace(/\s*[\r\n]+\s*/g, ' ').trim();

function inlineFieldsGiven(input: TriggerInput): string[] {
  return INLINE_FIELDS.filter((f) => input[f] !== undefined);
}

/** Type, text, url, event and window fields of `input` merged over `current`, validated; window dates without an offset read in `timeZone`. */
async function behaviour(
  ctx: ServiceContext, input: TriggerFields, current: TriggerDoc | undefined, timeZone: string,
): Promise<{ set: Partial<TriggerDoc>; unset: Array<keyof TriggerDoc>; extra?: ExtraKeys }> {
  const set: Partial<TriggerDoc> = {};
  if (input.type !== undefined) set.type = input.type;
  if (input.text !== undefined) set.text = cleanText(input.text);
  const url = input.url ?? input.callback;
  if (url !== undefined) set.url = url.trim();
  if (input.trigger_on !== undefined) set.trigger_on = input.trigger_on === 'exit' ? 'leave' : input.trigger_on;
  if (input.trigger_after !== undefined) set.trigger_after = input.trigger_after ?? 0;
  if (input.one_time !== undefined) set.one_time = flag(input.one_time);
  // On an update `extra` merges its keys into the stored hash (services/extra-merge.ts).
  const extra = input.extra === undefined ? undefined : current ? mergeExtra(input.extra, current.extra) : { whole: input.extra };
  if (extra?.whole) set.extra = extra.whole;
  const type = set.type ?? current?.type ?? 'message';
  const text = set.text ?? current?.text ?? '';
  const finalUrl = set.url ?? current?.url ?? '';
  if (type === 'message' && text === '') throw apiError('missing_input', 'text is required for message triggers');
  if (type === 'callback') {
    if (finalUrl === '') throw apiError('missing_input', 'url is required for callback triggers');
    // Checked again whenever the type or the address changes; the sender checks before each attempt too.
    if (set.type !== undefined || set.url !== undefined) {
      await assertNewCallbackTarget(finalUrl, ctx.config.callbackAllowPrivate, ctx.callbackResolver);
    }
  }
  checkDwell(set, current);
  const window = windowChange(input, current, timeZone);
  Object.assign(set, window.set);
  return { set, unset: [...window.unset], ...(extra?.keys ? { extra: extra.keys } : {}) };
}

/**
 * Dwell (`trigger_after`) belongs to enter triggers (reference §6.1, machines/README.md): on a leave
 * trigger it was stored, echoed and then ignored. A request that would give a leave trigger a dwell
 * is refused; a trigger stored that way before keeps it (still ignored) until either field is sent.
 */
function checkDwell(set: Partial<TriggerDoc>, current: TriggerDoc | undefined): void {
  const triggerOn = set.trigger_on ?? current?.trigger_on ?? 'enter';
  const dwell = set.trigger_after ?? current?.trigger_after ?? 0;
  if (triggerOn !== 'leave' || !(dwell > 0)) return;
  if (set.trigger_after !== undefined) {
    throw apiError('invalid_input', 'trigger_after (dwell) applies to enter triggers only; a leave trigger fires on leaving: leave trigger_after out or send 0');
  }
  if (set.trigger_on !== undefined && current?.trigger_on !== 'leave') {
    throw apiError('invalid_input', `trigger_after is ${dwell} on this trigger, and dwell applies to enter triggers only: to make it a leave trigger, clear trigger_after (send trigger_after 0) in the same request`);
  }
}

export async function requireTrigger(ctx: ServiceContext, appId: string, triggerId: string): Promise<TriggerDoc> {
  const trigger = await ctx.store.triggers.get(appId, triggerId);
  if (!trigger) throw notFound('Trigger');
  return trigger;
}

async function placeOf(ctx: ServiceContext, t: TriggerDoc): Promise<PlaceDoc | null> {
  return t.place_id ? ctx.store.places.get(t.app_id, t.place_id) : null;
}

async function existingByKey(ctx: ServiceContext, appId: string, key: string, timeZone: string) {
  const t = await ctx.store.triggers.byKey(appId, key);
  return t ? { created: false, body: triggerObject(t, await placeOf(ctx, t), ctx.now(), timeZone) } : null;
}

type Target = { kind: 'place'; place: PlaceDoc; isNew: boolean } | { kind: 'layer'; layerId: string };

/** Where the trigger goes, resolved and checked without writing anything. */
async function resolveTarget(ctx: ServiceContext, appId: string, defaultLayerId: string, input: TriggerInput): Promise<Target> {
  if (input.place_id !== undefined && input.layer_id !== undefined) {
    throw apiError('invalid_input', 'place_id and layer_id cannot be combined: a trigger is on one place or on a whole layer');
  }
  const inline = inlineFieldsGiven(input);
  if ((input.place_id !== undefined || input.layer_id !== undefined) && inline.length > 0) {
    throw apiError('invalid_input', `${inline.join(', ')} describe a new place and cannot be combined with place_id or layer_id`);
  }
  if (input.place_id !== undefined) return { kind: 'place', place: await requirePlace(ctx, appId, input.place_id), isNew: false };
  if (input.layer_id !== undefined) return { kind: 'layer', layerId: (await requireLayer(ctx, appId, input.layer_id))._id };
  const layerId = input.place_layer_id ?? defaultLayerId;
  if (input.place_key !== undefined) {
    const existing = await placeByKey(ctx, appId, layerId, input.place_key);
    if (existing) return { kind: 'place', place: existing, isNew: false };
  }
  if (input.latitude === undefined && input.longitude === undefined && input.geocode === undefined && (input.geometry === undefined || input.geometry === null)) {
    throw apiError('missing_input', 'Give place_id, layer_id, or latitude, longitude and radius (or a geometry) for a new place');
  }
  const place = await preparePlace(ctx, appId, defaultLayerId, {
    layer_id: layerId, key: input.place_key, name: input.place_name, description: input.place_description, extra: input.place_extra,
    latitude: input.latitude, longitude: input.longitude, radius: input.radius, span_longitude: input.span_longitude, geocode: input.geocode,
    geometry: input.geometry, width: input.width,
  });
  return { kind: 'place', place, isNew: true };
}

/** trigger/create. A repeated `key` writes nothing and answers with the existing trigger (409). */
async function createTriggerNow(
  ctx: ServiceContext, appId: string, defaultLayerId: string, input: TriggerInput, timeZone: string,
): Promise<Created<ReturnType<typeof triggerObject>>> {
  const { set } = await behaviour(ctx, input, undefined, timeZone);
  let target = await resolveTarget(ctx, appId, defaultLayerId, input);
  if (input.key !== undefined) {
    // Saves creating (and taking back) an inline place; the unique index below still decides races.
    const existing = await existingByKey(ctx, appId, input.key, timeZone);
    if (existing) return existing;
  }
  const doc: TriggerDoc = {
    _id: newId(), app_id: appId, layer_id: target.kind === 'layer' ? target.layerId : target.place.layer_id, on_layer: target.kind === 'layer',
    type: 'message', trigger_on: 'enter', trigger_after: 0, one_time: 0, text: '', url: '', extra: {}, created_at: ctx.now(),
    ...set,
  };
  if (target.kind === 'place') doc.place_id = target.place._id;
  if (input.key !== undefined) Object.assign(doc, { key: input.key, uniq_key: uniqKey(appId, input.key) });

  let placeCreated = false;
  if (target.kind === 'place' && target.isNew) {
    const res = await insertPlace(ctx, target.place);
    placeCreated = res.created;
    // Another request created the place with this place_key first: share it.
    target = { ...target, place: res.place };
    doc.place_id = res.place._id;
    doc.layer_id = res.place.layer_id;
  }
  try {
    await ctx.store.triggers.insert(doc);
  } catch (err) {
    if (placeCreated && target.kind === 'place') await ctx.store.places.removeMany(appId, [target.place._id]);
    if (err instanceof DuplicateKeyError && input.key !== undefined) {
      const existing = await existingByKey(ctx, appId, input.key, timeZone);
      if (existing) return existing;
    }
    throw err;
  }
  const place = target.kind === 'place' ? target.place : null;
  if (place && placeCreated) await ctx.changes.publish({ kind: 'place', op: 'saved', doc: place });
  await ctx.changes.publish({ kind: 'trigger', op: 'saved', doc });
  return { created: true, body: triggerObject(doc, place, ctx.now(), timeZone) };
}

/** trigger/create; `timeZone` (the request's) reads window dates without an offset and dates the answer. */
export function createTrigger(ctx: ServiceContext, appId: string, defaultLayerId: string, input: TriggerInput, timeZone = 'UTC') {
  return placing(ctx, appId, () => createTriggerNow(ctx, appId, defaultLayerId, input, timeZone));
}

export async function triggerInfo(ctx: ServiceContext, appId: string, triggerId: string, timeZone = 'UTC') {
  const t = await requireTrigger(ctx, appId, triggerId);
  return triggerObject(t, await placeOf(ctx, t), ctx.now(), timeZone);
}

/** trigger/update: the trigger/create fields except those that create a place; moving to another place or layer is allowed. */
async function updateTriggerNow(ctx: ServiceContext, appId: string, triggerId: string, input: TriggerInput, timeZone: string) {
  const inline = inlineFieldsGiven(input);
  if (inline.length > 0) throw apiError('invalid_input', `${inline.join(', ')} cannot be changed here: change the place with place/update`);
  if (input.place_id !== undefined && input.layer_id !== undefined) {
    throw apiError('invalid_input', 'place_id and layer_id cannot be combined: a trigger is on one place or on a whole layer');
  }
  const current = await requireTrigger(ctx, appId, triggerId);
  const { set, unset, extra } = await behaviour(ctx, input, current, timeZone);
  if (input.place_id !== undefined) {
    const place = await requirePlace(ctx, appId, input.place_id);
    Object.assign(set, { place_id: place._id, layer_id: place.layer_id, on_layer: false });
  } else if (input.layer_id !== undefined) {
    Object.assign(set, { layer_id: (await requireLayer(ctx, appId, input.layer_id))._id, on_layer: true });
    unset.push('place_id');
  }
  if (input.key !== undefined) Object.assign(set, { key: input.key, uniq_key: uniqKey(appId, input.key) });
  const changes: Changes<TriggerDoc> = { set, unset, ...(extra ? { extra } : {}) };
  let doc: TriggerDoc | null = current;
  if (Object.keys(set).length > 0 || unset.length > 0 || extra) {
    try {
      doc = await ctx.store.triggers.update(appId, triggerId, changes);
    } catch (err) {
      if (err instanceof DuplicateKeyError) throw apiError('duplicate_key', `Another trigger already has the key "${input.key}"`);
      throw err;
    }
    if (!doc) throw notFound('Trigger');
    await ctx.changes.publish({ kind: 'trigger', op: 'saved', doc });
    await followTriggerUpdate(ctx.delivery, current, doc);
  }
  return triggerObject(doc, await placeOf(ctx, doc), ctx.now(), timeZone);
}

/** trigger/update; `timeZone` as for createTrigger. */
export function updateTrigger(ctx: ServiceContext, appId: string, triggerId: string, input: TriggerInput, timeZone = 'UTC') {
  return placing(ctx, appId, () => updateTriggerNow(ctx, appId, triggerId, input, timeZone));
}

/** trigger/delete: as a place's or layer's delete removes it, its queued callbacks included. */
export async function deleteTrigger(ctx: ServiceContext, appId: string, triggerId: string) {
  await removeTriggers(ctx, appId, [await requireTrigger(ctx, appId, triggerId)]);
  return { result: 'ok' as const };
}

export interface TriggerListQuery {
  place_id?: string;
  layer_id?: string;
  /** `layer`: triggers on the layer itself; `places`: triggers on its places; absent: both. */
  on?: 'layer' | 'places';
  offset?: number;
  limit?: number;
}

/** trigger/list: one place's triggers, or one layer's (the default layer unless named). */
export async function listTriggers(ctx: ServiceContext, viewer: Viewer, q: TriggerListQuery) {
  let scope: TriggerScope;
  if (q.place_id !== undefined) {
    if (q.layer_id !== undefined) throw apiError('invalid_input', 'place_id and layer_id cannot be combined');
    const place = await requirePlace(ctx, viewer.appId, q.place_id);
    const layer = await requireLayer(ctx, viewer.appId, place.layer_id);
    if (!(await layerVisible(ctx, viewer, layer))) throw notFound('Place');
    scope = { placeId: place._id };
  } else {
    const layer = await requireVisibleLayer(ctx, viewer, q.layer_id ?? viewer.defaultLayerId);
    scope = { layerId: layer._id, on: q.on };
  }
  const page = pageRequest(q);
  const { items, total } = await ctx.store.triggers.page(viewer.appId, scope, page);
  const places = await ctx.store.places.many(viewer.appId, [...new Set(items.flatMap((t) => (t.place_id ? [t.place_id] : [])))]);
  const byId = new Map(places.map((p) => [p._id, p]));
  const now = ctx.now();
  return {
    triggers: items.map((t) => triggerObject(t, (t.place_id && byId.get(t.place_id)) || null, now, viewer.timeZone)),
    paging: pagingObject(page, total, items.length),
  };
}
