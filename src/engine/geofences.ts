// From stored documents to engine geofences, and what changes when a document changes. A geofence
// is a (trigger, place) pair: a place trigger gives one, a layer trigger one per place of its layer
// (places added later included). Pure: the host passes the documents, gets geofences or a diff
// back, and hands the diff to Engine.applyFenceDiff.
import type { LayerDoc, PlaceDoc, TriggerDoc } from '../store/documents.js';
import { prepareShape, type Shape } from '../geo/shape.js';
import { mergeWindows } from '../geo/time-window.js';
import { fenceKey, type Geofence } from '../../workers/protocol.js';

export interface FenceDiff {
  upsert: Geofence[];
  /** Keys (`fenceKey(triggerId, placeId)`) of geofences that no longer exist. */
  remove: string[];
}

type Layers = ReadonlyMap<string, LayerDoc> | readonly LayerDoc[];

function layerById(layers: Layers, id: string): LayerDoc | undefined {
  if (Array.isArray(layers)) return layers.find((l) => l._id === id);
  return (layers as ReadonlyMap<string, LayerDoc>).get(id);
}

/** Does this trigger apply to this place? */
export function appliesTo(trigger: TriggerDoc, place: PlaceDoc): boolean {
  return trigger.on_layer ? trigger.layer_id === place.layer_id : trigger.place_id === place._id;
}

/** The detect stage's form of a shaped place (undefined for a circle): made once per place, shared by its geofences. */
export function shapeOf(place: PlaceDoc): Shape | undefined {
  return place.geometry === undefined ? undefined : prepareShape(place.geometry, place.width, { lat: place.latitude, lon: place.longitude });
}

/**
 * The geofence of one (trigger, place). The place's layer decides who is evaluated and its
 * `trigger_rate_limit` spaces firings; the windows of trigger and place must both be open.
 * `shape`: the place's (shapeOf), when the caller has it already.
 */
export function toGeofence(trigger: TriggerDoc, place: PlaceDoc, layer: LayerDoc | undefined, shape = shapeOf(place)): Geofence {
  const f: Geofence = {
    key: fenceKey(trigger._id, place._id),
    triggerId: trigger._id,
    placeId: place._id,
    layerId: place.layer_id,
    lat: place.latitude,
    lon: place.longitude,
    radius: place.radius,
    triggerOn: trigger.trigger_on,
    triggerAfterS: trigger.trigger_after > 0 ? trigger.trigger_after : 0,
    oneTime: trigger.one_time === 1,
    rateLimitS: layer && layer.trigger_rate_limit > 0 ? layer.trigger_rate_limit : 0,
    window: mergeWindows(trigger, place),
  };
  // The trigger's own bounds too: the timeline tells an inactive trigger from a closed place.
  if (typeof trigger.date_from === 'number') f.triggerFrom = trigger.date_from;
  if (typeof trigger.date_to === 'number') f.triggerTo = trigger.date_to;
  if (shape !== undefined) f.shape = shape;
  return f;
}

/** The geofences of one trigger, given (at least) the places it may apply to. */
export function expandTrigger(trigger: TriggerDoc, places: readonly PlaceDoc[], layers: Layers, shapes?: ReadonlyMap<string, Shape>): Geofence[] {
  const out: Geofence[] = [];
  for (const p of places) {
    if (appliesTo(trigger, p)) out.push(toGeofence(trigger, p, layerById(layers, p.layer_id), shapes?.get(p._id)));
  }
  return out;
}

/** Every geofence of a set of documents (start-up, or a shard's reseed). */
export function expandAll(docs: { triggers: readonly TriggerDoc[]; places: readonly PlaceDoc[]; layers: Layers }): Geofence[] {
  const byLayer = new Map<string, PlaceDoc[]>();
  const byId = new Map<string, PlaceDoc>();
  // Each shaped place is made ready once, whatever the number of its triggers.
  const shapes = new Map<string, Shape>();
  for (const p of docs.places) {
    byId.set(p._id, p);
    if (p.geometry !== undefined) shapes.set(p._id, shapeOf(p)!);
    let list = byLayer.get(p.layer_id);
    if (!list) byLayer.set(p.layer_id, (list = []));
    list.push(p);
  }
  const out: Geofence[] = [];
  for (const t of docs.triggers) {
    const candidates = t.on_layer ? (byLayer.get(t.layer_id) ?? []) : t.place_id && byId.has(t.place_id) ? [byId.get(t.place_id)!] : [];
    out.push(...expandTrigger(t, candidates, docs.layers, shapes));
  }
  return out;
}

function diff(next: Geofence[], current: Iterable<Geofence>, owned: (f: Geofence) => boolean): FenceDiff {
  const keep = new Set(next.map((f) => f.key));
  const remove: string[] = [];
  for (const f of current) if (owned(f) && !keep.has(f.key)) remove.push(f.key);
  return { upsert: next, remove };
}

/**
 * A trigger was created or updated. `places`: the places it may apply to (its place, or its
 * layer's places; a superset is fine). `current`: the geofences the engine holds now.
 */
export function onTriggerSaved(trigger: TriggerDoc, places: readonly PlaceDoc[], layers: Layers, current: Iterable<Geofence>): FenceDiff {
  return diff(expandTrigger(trigger, places, layers), current, (f) => f.triggerId === trigger._id);
}

export function onTriggerDeleted(triggerId: string, current: Iterable<Geofence>): FenceDiff {
  return diff([], current, (f) => f.triggerId === triggerId);
}

/**
 * A place was created or updated (moved, resized, new windows, another layer). `triggers`: the
 * triggers that may apply to it (its own and its layer's; a superset is fine).
 */
export function onPlaceSaved(place: PlaceDoc, triggers: readonly TriggerDoc[], layers: Layers, current: Iterable<Geofence>): FenceDiff {
  const layer = layerById(layers, place.layer_id);
  const shape = shapeOf(place);
  const next = triggers.filter((t) => appliesTo(t, place)).map((t) => toGeofence(t, place, layer, shape));
  return diff(next, current, (f) => f.placeId === place._id);
}

export function onPlaceDeleted(placeId: string, current: Iterable<Geofence>): FenceDiff {
  return diff([], current, (f) => f.placeId === placeId);
}

/** A layer was updated: only its rate limit reaches the geofences. */
export function onLayerSaved(layer: LayerDoc, current: Iterable<Geofence>): FenceDiff {
  const rate = layer.trigger_rate_limit > 0 ? layer.trigger_rate_limit : 0;
  const upsert: Geofence[] = [];
  for (const f of current) if (f.layerId === layer._id && f.rateLimitS !== rate) upsert.push({ ...f, rateLimitS: rate });
  return { upsert, remove: [] };
}

/** A layer was deleted: its places and triggers go with it. */
export function onLayerDeleted(layerId: string, current: Iterable<Geofence>): FenceDiff {
  return diff([], current, (f) => f.layerId === layerId);
}
