// The comparison of what must fire (the oracle) with what arrived (callbacks and messages): matched,
// missed, duplicated, unexpected, and wrong payloads, each listed. Every expected event ends up in
// exactly one of matched, missed, not judged or excluded; every received one (one per event_id)
// in exactly one of matched, duplicate, unexpected, not judged or excluded, so the report can
// account for both totals. A wrong payload is also one of those. Events match on (user, trigger,
// place, triggered_on) and on the firing time within a tolerance (plus the precision of the time
// field: Unix seconds round down by up to a second).
import type { Ambiguity, ExpectedEvent } from './oracle/simulate.js';
import type { ReceivedEvent } from './received.js';
import type { World } from './world.js';

export interface ResolvedEvent extends ReceivedEvent {
  user?: number;
  trigger?: number;
  place?: number;
}

export interface Matched {
  expected: ExpectedEvent;
  received: ResolvedEvent;
  /** Arrival minus the moment the server could know the event (callbacks and streamed messages). */
  latencyMs?: number;
}

export interface MatchResult {
  matched: Matched[];
  missed: ExpectedEvent[];
  duplicates: Array<{ received: ResolvedEvent; duplicateOf: ExpectedEvent }>;
  unexpected: ResolvedEvent[];
  wrongPayload: ResolvedEvent[];
  /** Expected and received events of pairs the oracle could not judge. */
  ambiguousExpected: number;
  ambiguousReceived: number;
  notJudged: ExpectedEvent[];
  notJudgedReceived: ResolvedEvent[];
  /** Events of users whose requests failed (MatchOptions.excludedUsers): counted, never compared. */
  excludedExpected: number;
  excludedReceived: number;
}

export interface MatchOptions {
  toleranceMs: number;
  /** Users whose requests failed: the server's view of them is unknown, so they are not judged. */
  excludedUsers?: Set<number>;
  /** The layer id of each role, when known (the default layer's may not be, against --url). */
  layerIds?: Partial<Record<string, string>>;
}

function fits(e: ExpectedEvent, r: ResolvedEvent, tol: number): boolean {
  if (r.t === undefined) return false;
  // The received field covers [t, t + precision): Unix seconds are the firing time rounded down.
  return r.t + r.precisionMs > e.tMin - tol && r.t <= e.tMax + tol;
}

/** Maps service ids to world indexes and adds the payload problems that need the world. */
export function resolve(world: World, events: ReceivedEvent[], layerIds: Partial<Record<string, string>> = {}): ResolvedEvent[] {
  const users = new Map(world.users.map((u) => [u.id, u.index]));
  const triggers = new Map(world.triggers.map((t) => [t.id, t.index]));
  const places = new Map(world.places.map((p) => [p.id, p.index]));
  const paths = new Map(world.triggers.filter((t) => t.path).map((t) => [t.path!, t.index]));
  return events.map((ev) => {
    const r: ResolvedEvent = { ...ev, problems: [...ev.problems] };
    r.user = ev.userId !== undefined ? users.get(ev.userId) : undefined;
    r.trigger = ev.triggerId !== undefined ? triggers.get(ev.triggerId) : undefined;
    r.place = ev.placeId !== undefined ? places.get(ev.placeId) : undefined;
    if (ev.userId && r.user === undefined) r.problems.push(`unknown user ${ev.userId}`);
    if (ev.triggerId && r.trigger === undefined) r.problems.push(`unknown trigger ${ev.triggerId}`);
    if (ev.placeId && r.place === undefined) r.problems.push(`unknown place ${ev.placeId}`);
    const trigger = r.trigger !== undefined ? world.triggers[r.trigger] : undefined;
    const place = r.place !== undefined ? world.places[r.place] : undefined;
    if (trigger) {
      const kind = ev.source === 'callback' ? 'callback' : 'message';
      if (trigger.type !== kind) r.problems.push(`a ${trigger.type} trigger produced a ${kind}`);
      if (ev.triggerType !== undefined && ev.triggerType !== trigger.type) r.problems.push(`trigger.type ${ev.triggerType}, expected ${trigger.type}`);
      if (ev.triggerOn !== undefined && ev.triggerOn !== trigger.on) r.problems.push(`trigger.trigger_on ${ev.triggerOn}, expected ${trigger.on}`);
      if (ev.triggeredOn !== undefined && ev.triggeredOn !== trigger.on) r.problems.push(`triggered_on ${ev.triggeredOn}, expected ${trigger.on}`);
      if (ev.source === 'callback' && ev.triggeredDelay !== undefined && trigger.on === 'enter' && ev.triggeredDelay !== trigger.afterS) {
        r.problems.push(`triggered_delay ${ev.triggeredDelay}, expected ${trigger.afterS}`);
      }
      if (ev.path !== undefined && trigger.path !== undefined && ev.path !== trigger.path) {
        const other = paths.get(ev.path);
        r.problems.push(`POSTed to ${ev.path}${other !== undefined ? ` (trigger ${world.triggers[other].id})` : ''}, not to this trigger's url`);
      }
      if (place && !world.byTrigger[trigger.index].some((g) => world.geofences[g].place === place.index)) {
        r.problems.push(`place ${place.id} is not a place of trigger ${trigger.id}`);
      }
    }
    if (place) {
      const layerId = layerIds[place.layer];
      if (ev.layerId !== undefined && layerId !== undefined && ev.layerId !== layerId) r.problems.push(`layer.layer_id ${ev.layerId}, expected ${layerId}`);
      const g = ev.placeGeometry;
      if (g && place.shape) {
        // A shape's centre and radius are the service's to derive (docs/api.md "Shapes"): its geometry must be the one sent.
        if (JSON.stringify(g.geometry) !== JSON.stringify(place.shape.geometry) || (g.width ?? undefined) !== place.shape.width) {
          r.problems.push('place geometry or width differ from the place');
        }
      } else if (g && (g.geometry !== undefined || Math.abs(g.lat - place.lat) > 1e-6 || Math.abs(g.lng - place.lng) > 1e-6 || Math.abs(g.radius - place.radius) > 1e-6)) {
        r.problems.push('place coordinates or radius differ from the place');
      }
    }
    if (r.user !== undefined && place && !world.users[r.user].layers.includes(place.layer)) {
      r.problems.push(`user ${ev.userId} is not subscribed to the place's layer (${place.layer})`);
    }
    return r;
  });
}

const keyOf = (u: number, t: number, p: number | undefined) => `${u}:${t}:${p ?? '*'}`;

export function matchEvents(expected: ExpectedEvent[], received: ResolvedEvent[], ambiguities: Ambiguity[], o: MatchOptions): MatchResult {
  const tol = o.toleranceMs;
  const excluded = o.excludedUsers ?? new Set<number>();
  const marks = new Map<string, Ambiguity[]>();
  for (const a of ambiguities) {
    const k = `${a.user}:${a.trigger}`;
    let list = marks.get(k);
    if (!list) marks.set(k, (list = []));
    list.push(a);
  }
  const isAmbiguous = (u: number, trig: number, place: number | undefined, t: number | undefined) =>
    (marks.get(`${u}:${trig}`) ?? []).some((a) => (a.place === null || place === undefined || a.place === place) && (t === undefined || t >= a.from - tol - 1000));

  const result: MatchResult = {
    matched: [], missed: [], duplicates: [], unexpected: [], wrongPayload: [],
    ambiguousExpected: 0, ambiguousReceived: 0, notJudged: [], notJudgedReceived: [], excludedExpected: 0, excludedReceived: 0,
  };
  const groups = new Map<string, { expected: ExpectedEvent[]; received: ResolvedEvent[] }>();
  const group = (k: string) => {
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { expected: [], received: [] }));
    return g;
  };
  for (const e of expected) {
    if (excluded.has(e.user)) {
      result.excludedExpected++;
      continue;
    }
    group(keyOf(e.user, e.trigger, e.place)).expected.push(e);
  }
  for (const r of received) {
    if (r.problems.length > 0) result.wrongPayload.push(r);
    if (r.user !== undefined && excluded.has(r.user)) {
      result.excludedReceived++;
      continue;
    }
    if (r.user === undefined || r.trigger === undefined) {
      result.unexpected.push(r);
      continue;
    }
    // A message without a place_id is matched against any place of its trigger.
    group(keyOf(r.user, r.trigger, r.place)).received.push(r);
  }

  // Place-less received events borrow the groups of their trigger's places.
  const placeless = [...groups].filter(([k]) => k.endsWith(':*'));
  for (const [k, g] of placeless) {
    groups.delete(k);
    const prefix = k.slice(0, -1);
    for (const r of g.received) {
      const target = [...groups].find(([k2, g2]) => k2.startsWith(prefix) && g2.expected.some((e) => fits(e, r, tol)));
      if (target) target[1].received.push(r);
      else group(`${prefix}?`).received.push(r);
    }
  }

  for (const g of groups.values()) {
    g.expected.sort((a, b) => a.tMin - b.tMin);
    g.received.sort((a, b) => (a.t ?? 0) - (b.t ?? 0));
    const used = new Array<boolean>(g.expected.length).fill(false);
    for (const r of g.received) {
      if (isAmbiguous(r.user!, r.trigger!, r.place, r.t)) {
        result.ambiguousReceived++;
        result.notJudgedReceived.push(r);
        continue;
      }
      // Several firings may fit one received time (Unix seconds cover a whole second): prefer the
      // one whose triggering point is the payload's location.
      const samePoint = (e: ExpectedEvent) => r.location !== undefined && e.lat !== undefined && Math.abs(r.location.lat - e.lat) <= 1e-7 && Math.abs(r.location.lng - e.lng!) <= 1e-7;
      let i = g.expected.findIndex((e, j) => !used[j] && fits(e, r, tol) && samePoint(e));
      if (i < 0) i = g.expected.findIndex((e, j) => !used[j] && fits(e, r, tol));
      if (i >= 0) {
        used[i] = true;
        const e = g.expected[i];
        result.matched.push({ expected: e, received: r, ...(r.arrivalAt !== undefined ? { latencyMs: r.arrivalAt - e.causeAt } : {}) });
        if (e.cause === 'point' && r.location && e.lat !== undefined && (Math.abs(r.location.lat - e.lat) > 1e-7 || Math.abs(r.location.lng - e.lng!) > 1e-7)) {
          r.problems.push(`location ${r.location.lat},${r.location.lng} is not the triggering point ${e.lat},${e.lng}`);
          if (!result.wrongPayload.includes(r)) result.wrongPayload.push(r);
        }
        continue;
      }
      const j = g.expected.findIndex((e) => fits(e, r, tol));
      if (j >= 0) result.duplicates.push({ received: r, duplicateOf: g.expected[j] });
      else result.unexpected.push(r);
    }
    g.expected.forEach((e, j) => {
      if (used[j]) return;
      if (isAmbiguous(e.user, e.trigger, e.place, e.tMin)) {
        result.ambiguousExpected++;
        result.notJudged.push(e);
      } else result.missed.push(e);
    });
  }
  return result;
}
