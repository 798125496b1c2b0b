// What-if replay (docs/api.md "Replay"): a replay's documents changed in memory before they go to
// the replay thread: a place's circle or shape and windows, a trigger's event, dwell, windows and
// one-time, a layer's rate limit, and draft triggers that do not exist (on a place, a layer, or a
// place drawn in the request). Nothing is written; the checks are place/update's and
// trigger/update's, so a what-if the API would refuse to store is refused here with the same words.
import { apiError, notFound } from '../errors.js';
import type { Flag, LayerDoc, PlaceDoc, TriggerDoc } from '../store/documents.js';
import type { ReplayRun } from './context.js';
import { newShape, shapeChange, type ShapeInput } from './place-shape.js';
import { windowChange, type WindowInput } from './validity-window.js';

type ReplayDocs = ReplayRun['docs'];

export interface PlaceOverride extends ShapeInput, WindowInput {
  place_id: string;
}

export interface TriggerOverride extends WindowInput {
  trigger_id: string;
  trigger_on?: 'enter' | 'leave' | 'exit';
  trigger_after?: number | null;
  one_time?: number | boolean;
}

export interface LayerOverride {
  layer_id: string;
  trigger_rate_limit?: number;
}

/** A trigger that does not exist: on a place or a layer of the application, or on a place drawn here. */
export interface DraftTrigger extends ShapeInput, WindowInput {
  place_id?: string;
  layer_id?: string;
  /** The layer of a drawn place: the application's default layer unless given. */
  place_layer_id?: string;
  place_name?: string;
  trigger_on?: 'enter' | 'leave' | 'exit';
  trigger_after?: number | null;
  one_time?: number | boolean;
}

export interface WhatIfInput {
  overrides?: { places?: PlaceOverride[]; triggers?: TriggerOverride[]; layers?: LayerOverride[] };
  draft_triggers?: DraftTrigger[];
}

/** Ids of the drafts: fixed by their position, so a what-if replay stays deterministic. */
export const draftTriggerId = (i: number) => `draft-trigger-${i + 1}`;
export const draftPlaceId = (i: number) => `draft-place-${i + 1}`;

export interface WhatIfResult {
  docs: ReplayDocs;
  /** The ids the answer names as changed or drafted. */
  applied: { places: string[]; triggers: string[]; layers: string[]; draft_triggers: Array<{ trigger_id: string; place_id: string | null; layer_id: string }> };
}

interface Env {
  appId: string;
  defaultLayerId: string;
  now: number;
  /** Dates without an offset are read in it. */
  timeZone: string;
}

const flag = (v: number | boolean): Flag => (v === true || v === 1 ? 1 : 0);
const triggerOn = (v: 'enter' | 'leave' | 'exit') => (v === 'exit' ? 'leave' : v);

function unsetFields<T extends object>(doc: T, fields: readonly string[]): T {
  const copy = { ...doc } as Record<string, unknown>;
  for (const f of fields) delete copy[f];
  return copy as T;
}

function onePerId<T>(list: readonly T[] | undefined, id: (t: T) => string, what: string): void {
  const seen = new Set<string>();
  for (const t of list ?? []) {
    if (seen.has(id(t))) throw apiError('invalid_input', `overrides.${what} names ${id(t)} twice: give one override per id`);
    seen.add(id(t));
  }
}

function overridePlace(current: PlaceDoc, o: PlaceOverride, tz: string): PlaceDoc {
  const shape = shapeChange(o, current);
  const next: PlaceDoc = { ...current, ...shape.set };
  for (const k of ['latitude', 'longitude', 'radius'] as const) if (shape.circle[k] !== undefined) next[k] = shape.circle[k]!;
  if (shape.circle.radius === undefined && shape.circle.span_longitude !== undefined) {
    throw apiError('invalid_input', 'overrides.places: send radius, not span_longitude');
  }
  const window = windowChange(o, current, tz);
  return unsetFields({ ...next, ...window.set }, [...shape.unset, ...window.unset]);
}

/** trigger/update's rule: a dwell belongs to an enter trigger. */
function checkDwell(t: Pick<TriggerDoc, 'trigger_on' | 'trigger_after'>, where: string): void {
  if (t.trigger_on === 'leave' && t.trigger_after > 0) {
    throw apiError('invalid_input', `${where}: trigger_after (dwell) applies to enter triggers only; a leave trigger fires on leaving`);
  }
}

function overrideTrigger(current: TriggerDoc, o: TriggerOverride, tz: string): TriggerDoc {
  const next: TriggerDoc = { ...current };
  if (o.trigger_on !== undefined) next.trigger_on = triggerOn(o.trigger_on);
  if (o.trigger_after !== undefined) next.trigger_after = o.trigger_after ?? 0;
  if (o.one_time !== undefined) next.one_time = flag(o.one_time);
  checkDwell(next, `overrides.triggers ${current._id}`);
  const window = windowChange(o, current, tz);
  return unsetFields({ ...next, ...window.set }, window.unset);
}

function draft(d: DraftTrigger, i: number, docs: ReplayDocs, env: Env): { trigger: TriggerDoc; place?: PlaceDoc } {
  const id = draftTriggerId(i);
  const drawn = d.latitude !== undefined || d.longitude !== undefined || (d.geometry !== undefined && d.geometry !== null);
  const targets = [d.place_id !== undefined, d.layer_id !== undefined, drawn].filter(Boolean).length;
  if (targets !== 1) {
    throw apiError('invalid_input', `draft_triggers[${i}]: give one of place_id, layer_id, or a place to draw (latitude, longitude and radius, or a geometry)`);
  }
  const trigger: TriggerDoc = {
    _id: id, app_id: env.appId, layer_id: '', on_layer: false, type: 'message', text: 'draft', url: '', extra: {}, created_at: env.now,
    trigger_on: triggerOn(d.trigger_on ?? 'enter'), trigger_after: d.trigger_after ?? 0, one_time: flag(d.one_time ?? 0),
  };
  checkDwell(trigger, `draft_triggers[${i}]`);
  Object.assign(trigger, windowChange(d, {}, env.timeZone).set);
  if (d.layer_id !== undefined) {
    if (!docs.layers.some((l) => l._id === d.layer_id)) throw notFound('Layer');
    return { trigger: { ...trigger, layer_id: d.layer_id, on_layer: true } };
  }
  if (d.place_id !== undefined) {
    const place = docs.places.find((p) => p._id === d.place_id);
    if (!place) throw notFound('Place');
    return { trigger: { ...trigger, layer_id: place.layer_id, place_id: place._id } };
  }
  const layerId = d.place_layer_id ?? env.defaultLayerId;
  if (!docs.layers.some((l) => l._id === layerId)) throw notFound('Layer');
  const shape = newShape(d);
  if (shape === null && (d.latitude === undefined || d.longitude === undefined || d.radius === undefined)) {
    throw apiError('missing_input', `draft_triggers[${i}]: a drawn circle needs latitude, longitude and radius`);
  }
  const place: PlaceDoc = {
    _id: draftPlaceId(i), app_id: env.appId, layer_id: layerId, name: d.place_name ?? '', description: '', extra: {}, created_at: env.now,
    latitude: shape?.latitude ?? d.latitude!, longitude: shape?.longitude ?? d.longitude!, radius: shape?.radius ?? d.radius!,
  };
  if (shape !== null) {
    place.geometry = shape.geometry;
    if (shape.width !== undefined) place.width = shape.width;
  }
  return { trigger: { ...trigger, layer_id: layerId, place_id: place._id }, place };
}

/** The documents with the what-if applied; ids the request names that are not the application's are 404s. */
export function applyWhatIf(docs: ReplayDocs, input: WhatIfInput, env: Env): WhatIfResult {
  const o = input.overrides ?? {};
  onePerId(o.places, (p) => p.place_id, 'places');
  onePerId(o.triggers, (t) => t.trigger_id, 'triggers');
  onePerId(o.layers, (l) => l.layer_id, 'layers');
  const byId = <T extends { _id: string }>(list: readonly T[]) => new Map(list.map((d) => [d._id, d]));
  const places = byId(docs.places);
  const triggers = byId(docs.triggers);
  const layers = byId(docs.layers);
  for (const p of o.places ?? []) {
    const current = places.get(p.place_id);
    if (!current) throw notFound('Place');
    places.set(p.place_id, overridePlace(current, p, env.timeZone));
  }
  for (const t of o.triggers ?? []) {
    const current = triggers.get(t.trigger_id);
    if (!current) throw notFound('Trigger');
    triggers.set(t.trigger_id, overrideTrigger(current, t, env.timeZone));
  }
  for (const l of o.layers ?? []) {
    const current = layers.get(l.layer_id);
    if (!current) throw notFound('Layer');
    const next: LayerDoc = { ...current };
    if (l.trigger_rate_limit !== undefined) next.trigger_rate_limit = l.trigger_rate_limit;
    layers.set(l.layer_id, next);
  }
  const drafted = (input.draft_triggers ?? []).map((d, i) => draft(d, i, { ...docs, layers: [...layers.values()] }, env));
  for (const d of drafted) {
    triggers.set(d.trigger._id, d.trigger);
    if (d.place) places.set(d.place._id, d.place);
  }
  return {
    docs: { triggers: [...triggers.values()], places: [...places.values()], layers: [...layers.values()] },
    applied: {
      places: (o.places ?? []).map((p) => p.place_id),
      triggers: (o.triggers ?? []).map((t) => t.trigger_id),
      layers: (o.layers ?? []).map((l) => l.layer_id),
      draft_triggers: drafted.map((d) => ({ trigger_id: d.trigger._id, place_id: d.trigger.place_id ?? null, layer_id: d.trigger.layer_id })),
    },
  };
}
