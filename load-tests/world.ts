// The simulated world: layers, places, triggers and users, generated from the seed. It holds one of
// every kind of geofence the service supports (enter, leave, dwell, one-time, message and callback,
// layer triggers over layers with many places and subscribers, date and time windows on triggers and
// places, a layer trigger_rate_limit, inline triggers), then fills up to the requested number of
// geofences with plain layer places. Places keep a constant density, so the region grows with the
// geofence count and each phone meets the same mix whether there are 1,000 geofences or 100,000.
import { GridIndex } from './grid-index.js';
import { offset, type LatLng } from './geo.js';
import { Rng } from './rng.js';
import { makeShape, type PlaceShape } from './shapes.js';

export type LayerRole = 'default' | 'bulk' | 'rate' | 'sub' | 'multi';
export type TriggerType = 'callback' | 'message';
export type TriggerOn = 'enter' | 'leave';

/**
 * A validity window relative to the run's anchor (the moment the triggers are created): absolute
 * dates as millisecond offsets, daily times as second offsets from the anchor's UTC time of day.
 * `resolveWindows` turns them into the values sent to the API.
 */
export interface RelativeWindow {
  dateFromMs?: number;
  dateToMs?: number;
  /** Daily window [anchor time of day + from, anchor time of day + to], in the user's timezone. */
  timeFromS?: number;
  timeToS?: number;
  /** Explicit all-day window (00:00:00–00:00:00). */
  allDay?: boolean;
}

/** What the API receives and the oracle reads. Dates are epoch ms; times are HH:MM:SS. */
export interface Window {
  dateFrom?: number;
  dateTo?: number;
  timeFrom?: string;
  timeTo?: string;
}

export interface LayerSpec {
  role: LayerRole;
  key: string;
  name: string;
  rateLimitS: number;
  /** Share of users subscribed (the default layer holds every user without a subscription). */
  subscribeShare: number;
  id?: string;
}

export type PlaceKind =
  | 'bulk' | 'enter' | 'leave' | 'enter_leave' | 'dwell' | 'dwell_once' | 'once' | 'message'
  | 'date' | 'time' | 'place_window' | 'rate' | 'sub' | 'inline' | 'multi';

export interface PlaceSpec {
  index: number;
  kind: PlaceKind;
  key: string;
  name: string;
  lat: number;
  lng: number;
  /** A circle's radius; a shaped place's circle round its centre that lies inside it. */
  radius: number;
  /** A polygon or corridor (shapes.ts) instead of the circle; `lat`, `lng` are inside it. */
  shape?: PlaceShape;
  layer: LayerRole;
  window?: RelativeWindow;
  resolved?: Window;
  /** Created by this trigger (inline coordinates) instead of place/create. */
  inlineTrigger?: number;
  id?: string;
}

export interface TriggerSpec {
  index: number;
  /** Short label for reports: what this trigger exercises. */
  label: string;
  key: string;
  type: TriggerType;
  on: TriggerOn;
  afterS: number;
  oneTime: boolean;
  /** Attached to one place (index), or to every place of a layer. */
  place?: number;
  layer?: LayerRole;
  inline?: boolean;
  window?: RelativeWindow;
  resolved?: Window;
  text?: string;
  /** Path on the callback receiver: each callback trigger has its own. */
  path?: string;
  id?: string;
}

export interface UserSpec {
  index: number;
  key: string;
  timezone: string;
  layers: LayerRole[];
  quiet: boolean;
  late: boolean;
  jitter: boolean;
  id?: string;
  token?: string;
}

/** A geofence: one (trigger, place) pair. */
export interface Geofence {
  index: number;
  trigger: number;
  place: number;
}

export interface WorldOptions {
  seed: number;
  users: number;
  geofences: number;
  /** Dwell of the dwell triggers, seconds. */
  dwellS: number;
  /** trigger_rate_limit of the rate-limited layer, seconds. */
  rateLimitS: number;
  /** Load phase length, seconds (the mid-run date boundary sits in its middle). */
  durationS: number;
  quietShare: number;
  lateShare: number;
  jitterShare: number;
  /** Mean distance between neighbouring place centres, metres. */
  spacingM: number;
  /**
   * Share of places that are plain places of the bulk layer (two geofences each, from its two
   * layer triggers): a large share makes a huge geofence count cheap to create.
   */
  fillerShare?: number;
  /**
   * Share of the places without a dwell, inline or windowed trigger that are a polygon or a
   * corridor (shapes.ts) instead of a circle (default 0).
   */
  shapeShare?: number;
  /** Distinguishes this run's keys and names from earlier runs against the same service. */
  runId: string;
  origin?: LatLng;
}

export interface World {
  options: WorldOptions;
  layers: Record<LayerRole, LayerSpec>;
  places: PlaceSpec[];
  triggers: TriggerSpec[];
  users: UserSpec[];
  geofences: Geofence[];
  /** Geofence indexes per place. */
  byPlace: number[][];
  /** Geofence indexes per trigger. */
  byTrigger: number[][];
  index: GridIndex<PlaceSpec>;
  /** How far any place reaches from its centre (a shape's reach, a circle's radius). */
  maxRadius: number;
  /** Places with a dwell geofence, per layer. */
  dwellPlaces: Record<LayerRole, number[]>;
  /** Side of the square region, metres. */
  sideM: number;
  origin: LatLng;
}

export const TIMEZONES = ['UTC', 'America/Los_Angeles', 'Asia/Tokyo', 'Europe/Paris', 'Asia/Kolkata', 'Pacific/Chatham'] as const;

const LAYER_TRIGGERS: Record<LayerRole, Array<Omit<TriggerSpec, 'index' | 'key' | 'layer'>>> = {
  default: [],
  bulk: [
    { label: 'layer enter', type: 'callback', on: 'enter', afterS: 0, oneTime: false },
    { label: 'layer leave (bulk)', type: 'callback', on: 'leave', afterS: 0, oneTime: false },
  ],
  rate: [{ label: 'rate-limited layer enter', type: 'callback', on: 'enter', afterS: 0, oneTime: false }],
  sub: [],
  multi: [
    { label: 'layer enter message', type: 'message', on: 'enter', afterS: 0, oneTime: false },
    { label: 'layer leave', type: 'callback', on: 'leave', afterS: 0, oneTime: false },
  ],
};

type PlaceTrigger = Omit<TriggerSpec, 'index' | 'key' | 'place'>;
interface KindTemplate {
  layer: LayerRole;
  weight: number;
  triggers: (o: WorldOptions) => PlaceTrigger[];
  window?: (o: WorldOptions) => RelativeWindow;
}

const cb = (label: string, on: TriggerOn, extra: Partial<PlaceTrigger> = {}): PlaceTrigger => ({
  label, type: 'callback', on, afterS: 0, oneTime: false, ...extra,
});
const msg = (label: string, on: TriggerOn, extra: Partial<PlaceTrigger> = {}): PlaceTrigger => ({
  label, type: 'message', on, afterS: 0, oneTime: false, ...extra,
});

const HOUR_S = 3600;
const DAY_MS = 86_400_000;

const KINDS: Record<PlaceKind, KindTemplate> = {
  // Chosen by WorldOptions.fillerShare rather than by weight.
  bulk: { layer: 'bulk', weight: 0, triggers: () => [] },
  enter: { layer: 'default', weight: 8, triggers: () => [cb('enter', 'enter')] },
  leave: { layer: 'default', weight: 6, triggers: () => [cb('leave', 'leave')] },
  enter_leave: { layer: 'default', weight: 5, triggers: () => [msg('enter message', 'enter'), cb('leave', 'leave')] },
  dwell: { layer: 'default', weight: 8, triggers: (o) => [cb('dwell', 'enter', { afterS: o.dwellS }), cb('enter', 'enter')] },
  dwell_once: { layer: 'default', weight: 3, triggers: (o) => [cb('dwell one-time', 'enter', { afterS: o.dwellS, oneTime: true })] },
  once: { layer: 'default', weight: 4, triggers: () => [cb('one-time enter', 'enter', { oneTime: true }), cb('one-time leave', 'leave', { oneTime: true })] },
  message: { layer: 'default', weight: 5, triggers: (o) => [msg('enter message', 'enter'), msg('dwell message', 'enter', { afterS: o.dwellS })] },
  date: {
    layer: 'default', weight: 3,
    triggers: (o) => [
      cb('date expired', 'enter', { window: { dateFromMs: -2 * DAY_MS, dateToMs: -DAY_MS } }),
      cb('date future', 'enter', { window: { dateFromMs: DAY_MS } }),
      // Ends in the middle of the load phase: firings before it count, after it are gated.
      cb('date ends mid-run', 'enter', { window: { dateFromMs: -HOUR_S * 1000, dateToMs: Math.round(o.durationS * 500) } }),
    ],
  },
  time: {
    layer: 'default', weight: 3,
    triggers: () => [
      // Open around the anchor's UTC time: fires for UTC users, not for users an hour or more away.
      cb('time window (UTC users)', 'enter', { window: { timeFromS: -HOUR_S / 2, timeToS: HOUR_S / 2 } }),
      // Wraps over midnight the other way round: closed for UTC users, open for the others.
      cb('time window wrapping', 'enter', { window: { timeFromS: (3 * HOUR_S) / 4, timeToS: (-3 * HOUR_S) / 4 } }),
      cb('time window all day', 'enter', { window: { allDay: true } }),
    ],
  },
  place_window: {
    layer: 'default', weight: 2,
    triggers: () => [cb('place window', 'enter')],
    // Open from 5 to 10 hours ahead of UTC: Asia/Kolkata and Asia/Tokyo users only.
    window: () => ({ dateFromMs: -HOUR_S * 1000, dateToMs: DAY_MS, timeFromS: 5 * HOUR_S, timeToS: 10 * HOUR_S }),
  },
  rate: { layer: 'rate', weight: 5, triggers: () => [] },
  sub: { layer: 'sub', weight: 4, triggers: () => [cb('subscribed layer place', 'enter')] },
  inline: { layer: 'default', weight: 2, triggers: () => [cb('inline', 'enter', { inline: true })] },
  multi: { layer: 'multi', weight: 3, triggers: (o) => [cb('dwell on layer place', 'enter', { afterS: o.dwellS })] },
};

export const PLACE_KINDS = Object.keys(KINDS) as PlaceKind[];
/** Kinds that may be a shape: no dwell (the track planner times dwells by the radius), no window, not inline. */
const SHAPE_KINDS: PlaceKind[] = ['bulk', 'enter', 'leave', 'enter_leave', 'once', 'sub'];

/** Leave margin and usable accuracy: machines/README.md "Zones", with its tunable defaults. */
export interface ZoneParams {
  leaveMarginMinM: number;
  leaveMarginRatio: number;
  maxAccuracyMinM: number;
}

export const DEFAULT_ZONES: ZoneParams = { leaveMarginMinM: 20, leaveMarginRatio: 0.1, maxAccuracyMinM: 100 };

export const leaveMargin = (radius: number, z: ZoneParams) => Math.max(z.leaveMarginMinM, z.leaveMarginRatio * radius);

function pairsOf(kind: PlaceKind, o: WorldOptions): number {
  const t = KINDS[kind];
  return t.triggers(o).length + LAYER_TRIGGERS[t.layer].length;
}

export function generateWorld(o: WorldOptions): World {
  const rng = new Rng(o.seed, 'world');
  const origin = o.origin ?? { lat: 45.52, lng: -122.68 };
  const layers = defaultLayers(o.runId, o.rateLimitS);

  // Place kinds: one of each first (when the budget allows), then drawn by weight; the layer
  // triggers' pairs count too. A kind that would overshoot the budget becomes a bulk place.
  const kinds: PlaceKind[] = [];
  let pairs = 0;
  const special = PLACE_KINDS.filter((k) => k !== 'bulk');
  const weights = special.map((k) => KINDS[k].weight);
  const filler = o.fillerShare ?? 0.4;
  let guard = 0;
  while (pairs < o.geofences && guard++ < o.geofences * 4 + 100) {
    const left = o.geofences - pairs;
    let kind: PlaceKind =
      kinds.length < PLACE_KINDS.length ? PLACE_KINDS[kinds.length] : rng.chance(filler) ? 'bulk' : special[rng.weighted(weights)];
    // The last one or two pairs: a place that carries exactly what is left.
    if (pairsOf(kind, o) > left) kind = left === 1 ? 'enter' : 'bulk';
    if (pairsOf(kind, o) > left) break;
    kinds.push(kind);
    pairs += pairsOf(kind, o);
  }

  const sideM = Math.max(1500, Math.sqrt(kinds.length) * o.spacingM);
  const places: PlaceSpec[] = [];
  let lastRate: PlaceSpec | undefined;
  let rateInCluster = 0;
  for (let i = 0; i < kinds.length; i++) {
    const kind = kinds[i];
    const radius = rng.chance(0.06) ? rng.int(200, 350) : rng.int(40, 150);
    let at = offset(origin, rng.range(0, sideM), rng.range(0, sideM));
    // Rate-limited places come in clusters of three so one walk crosses several within the limit.
    if (kind === 'rate') {
      if (lastRate && rateInCluster < 3) {
        const angle = rng.range(0, 2 * Math.PI);
        const d = lastRate.radius + radius + rng.range(40, 120);
        at = offset({ lat: lastRate.lat, lng: lastRate.lng }, d * Math.cos(angle), d * Math.sin(angle));
        rateInCluster++;
      } else rateInCluster = 1;
    }
    const place: PlaceSpec = {
      index: i, kind, key: `${o.runId}-p${i}`, name: `load ${o.runId} place ${i} ${kind}`,
      lat: round7(at.lat), lng: round7(at.lng), radius, layer: KINDS[kind].layer,
      ...(KINDS[kind].window ? { window: KINDS[kind].window!(o) } : {}),
    };
    if (kind === 'rate') lastRate = place;
    // Shapes draw from their own stream, so a world without them is the one it always was.
    const sr = new Rng(o.seed, 'shape', i);
    if (SHAPE_KINDS.includes(kind) && sr.chance(o.shapeShare ?? 0)) {
      place.shape = makeShape(sr, at);
      place.radius = Math.floor(place.shape.inside);
    }
    places.push(place);
  }

  const triggers: TriggerSpec[] = [];
  const addTrigger = (t: Omit<TriggerSpec, 'index' | 'key'>) => {
    const index = triggers.length;
    const key = `${o.runId}-t${index}`;
    const spec: TriggerSpec = {
      ...t, index, key,
      ...(t.type === 'message' ? { text: `${t.label} #${index}` } : { path: `/cb/${key}` }),
    };
    triggers.push(spec);
    return spec;
  };
  for (const role of Object.keys(LAYER_TRIGGERS) as LayerRole[]) {
    for (const t of LAYER_TRIGGERS[role]) addTrigger({ ...t, layer: role });
  }
  for (const place of places) {
    for (const t of KINDS[place.kind].triggers(o)) {
      const spec = addTrigger({ ...t, place: place.index });
      if (spec.inline) place.inlineTrigger = spec.index;
    }
  }

  const users: UserSpec[] = [];
  for (let i = 0; i < o.users; i++) {
    const ur = new Rng(o.seed, 'user', i);
    const timezone = ur.chance(0.5) ? 'UTC' : ur.pick(TIMEZONES.slice(1));
    const subscribed = (['bulk', 'rate', 'sub', 'multi'] as LayerRole[]).filter((r) => ur.chance(layers[r].subscribeShare));
    users.push({
      index: i, key: `${o.runId}-u${i}`, timezone, layers: ['default', ...subscribed],
      quiet: ur.chance(o.quietShare), late: ur.chance(o.lateShare), jitter: ur.chance(o.jitterShare),
    });
  }

  const world = assembleWorld(o, layers, places, triggers, users, origin);
  world.sideM = sideM;
  return world;
}

/** Derives the geofences and indexes of a world from its layers, places, triggers and users. */
export function assembleWorld(
  o: WorldOptions, layers: Record<LayerRole, LayerSpec>, places: PlaceSpec[], triggers: TriggerSpec[], users: UserSpec[], origin: LatLng,
): World {
  const geofences: Geofence[] = [];
  const byPlace: number[][] = places.map(() => []);
  const byTrigger: number[][] = triggers.map(() => []);
  const placesOfLayer = (role: LayerRole) => places.filter((p) => p.layer === role);
  for (const t of triggers) {
    const targets = t.layer !== undefined ? placesOfLayer(t.layer) : [places[t.place!]];
    for (const p of targets) {
      const g: Geofence = { index: geofences.length, trigger: t.index, place: p.index };
      geofences.push(g);
      byPlace[p.index].push(g.index);
      byTrigger[t.index].push(g.index);
    }
  }
  const maxRadius = places.reduce((m, p) => Math.max(m, p.shape?.reach ?? p.radius), 0);
  const world: World = {
    options: o, layers, places, triggers, users, geofences, byPlace, byTrigger,
    index: new GridIndex(places, origin.lat, 500), maxRadius, sideM: 0, origin,
    dwellPlaces: { default: [], bulk: [], rate: [], sub: [], multi: [] },
  };
  for (const p of places) if (hasDwell(world, p.index)) world.dwellPlaces[p.layer].push(p.index);
  return world;
}

/** Layers with the roles and defaults generateWorld uses (tests build small worlds with them). */
export function defaultLayers(runId: string, rateLimitS: number): Record<LayerRole, LayerSpec> {
  const layers = {} as Record<LayerRole, LayerSpec>;
  const shares: Record<LayerRole, number> = { default: 1, bulk: 1, rate: 0.6, sub: 0.5, multi: 0.7 };
  for (const role of ['default', 'bulk', 'rate', 'sub', 'multi'] as LayerRole[]) {
    layers[role] = {
      role, key: `${runId}-layer-${role}`, name: `load ${runId} ${role}`,
      rateLimitS: role === 'rate' ? rateLimitS : 0, subscribeShare: shares[role],
    };
  }
  return layers;
}

export const round7 = (x: number) => Math.round(x * 1e7) / 1e7;

/** The layer a geofence belongs to: its place's layer (a layer trigger's places are on its layer). */
export function geofenceLayer(w: World, g: Geofence): LayerRole {
  return w.places[g.place].layer;
}

/** Geofence indexes of a place that apply to a user (the place's layer is one of the user's). */
export function geofencesFor(w: World, user: UserSpec, placeIndex: number): number[] {
  const layer = w.places[placeIndex].layer;
  return user.layers.includes(layer) ? w.byPlace[placeIndex] : [];
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Seconds of day (any integer, taken modulo a day) as HH:MM:SS. */
export function clockTime(secondsOfDay: number): string {
  const s = ((Math.round(secondsOfDay) % 86_400) + 86_400) % 86_400;
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

/** Absolute window values for a run anchored at `anchorMs` (whole seconds, as an API client sends). */
export function resolveWindow(w: RelativeWindow | undefined, anchorMs: number): Window | undefined {
  if (!w) return undefined;
  const anchorS = Math.floor(anchorMs / 1000);
  const dayS = anchorS % 86_400;
  const out: Window = {};
  if (w.dateFromMs !== undefined) out.dateFrom = (anchorS + Math.round(w.dateFromMs / 1000)) * 1000;
  if (w.dateToMs !== undefined) out.dateTo = (anchorS + Math.round(w.dateToMs / 1000)) * 1000;
  if (w.allDay) {
    out.timeFrom = '00:00:00';
    out.timeTo = '00:00:00';
  }
  if (w.timeFromS !== undefined) out.timeFrom = clockTime(dayS + w.timeFromS);
  if (w.timeToS !== undefined) out.timeTo = clockTime(dayS + w.timeToS);
  return out;
}

export function resolveWindows(w: World, anchorMs: number): void {
  for (const p of w.places) p.resolved = resolveWindow(p.window, anchorMs);
  for (const t of w.triggers) t.resolved = resolveWindow(t.window, anchorMs);
}

/** Whether a place carries a dwell geofence (for users of its layer). */
export function hasDwell(w: World, placeIndex: number): boolean {
  return w.byPlace[placeIndex].some((g) => w.triggers[w.geofences[g].trigger].afterS > 0);
}

/** Places that carry a dwell geofence for this user: quiet phones head for one first. */
export function dwellPlacesFor(w: World, user: UserSpec): number[] {
  return user.layers.flatMap((role) => w.dwellPlaces[role]);
}
