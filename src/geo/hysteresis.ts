// Accuracy-aware zone classification (machines/README.md "Zones"): entering needs the point
// inside the place, leaving needs it beyond the boundary by a margin, and a point with poor
// accuracy moves nothing. This is what keeps boundary jitter from producing enter/leave storms.
// One rule in distances for every shape: a circle's boundary is its radius from the centre
// (classifyZone), a polygon's or corridor's is measured by shape.ts (classifyEdge); the radius a
// shape is given (shape-centre.ts) scales its margin and accuracy bound as a circle's does.

export const LEAVE_MARGIN_MIN_M = 20;
export const LEAVE_MARGIN_RATIO = 0.1;
export const MAX_ACCURACY_MIN_M = 100;

export type Zone = 'in' | 'out' | 'band' | 'unusable';

export interface HysteresisOptions {
  leaveMarginMinM?: number;
  leaveMarginRatio?: number;
  maxAccuracyMinM?: number;
}

/** The constants in force, with every option filled in (resolve once, reuse in hot loops). */
export interface Hysteresis {
  leaveMarginMinM: number;
  leaveMarginRatio: number;
  maxAccuracyMinM: number;
}

export const DEFAULT_HYSTERESIS: Readonly<Hysteresis> = Object.freeze({
  leaveMarginMinM: LEAVE_MARGIN_MIN_M,
  leaveMarginRatio: LEAVE_MARGIN_RATIO,
  maxAccuracyMinM: MAX_ACCURACY_MIN_M,
});

export function resolveHysteresis(options?: HysteresisOptions): Hysteresis {
  return {
    leaveMarginMinM: options?.leaveMarginMinM ?? LEAVE_MARGIN_MIN_M,
    leaveMarginRatio: options?.leaveMarginRatio ?? LEAVE_MARGIN_RATIO,
    maxAccuracyMinM: options?.maxAccuracyMinM ?? MAX_ACCURACY_MIN_M,
  };
}

export function leaveMarginM(radius: number, h: Hysteresis = DEFAULT_HYSTERESIS): number {
  return Math.max(h.leaveMarginMinM, h.leaveMarginRatio * radius);
}

/** Beyond this distance a point is `out` (or unusable): the circle the index must cover. */
export function outerRadiusM(radius: number, h: Hysteresis = DEFAULT_HYSTERESIS): number {
  return radius + leaveMarginM(radius, h);
}

/** Worst horizontal accuracy still allowed to move a machine of a geofence of this radius. */
export function maxAccuracyM(radius: number, h: Hysteresis = DEFAULT_HYSTERESIS): number {
  return Math.max(h.maxAccuracyMinM, radius);
}

/** Missing, negative or non-numeric accuracy counts as 0 (the rule says so). */
export function normaliseAccuracy(acc: number | null | undefined): number {
  return typeof acc === 'number' && acc > 0 ? acc : 0;
}

/** Zone of a point at `distanceM` from the centre of a geofence of `radius`, with accuracy `acc`. */
export function classifyZone(
  distanceM: number,
  radius: number,
  acc: number | null | undefined,
  h: Hysteresis = DEFAULT_HYSTERESIS,
): Zone {
  if (normaliseAccuracy(acc) > maxAccuracyM(radius, h)) return 'unusable';
  if (distanceM <= radius) return 'in';
  if (distanceM > radius + leaveMarginM(radius, h)) return 'out';
  return 'band';
}

/**
 * Zone of a point `edgeM` metres outside a place's boundary (negative inside), for a place whose
 * radius is `radius`: in on or inside the boundary, out beyond the leave margin, the band between.
 * For a circle, `classifyZone(d, r)` is this with `edgeM = d - r`.
 */
export function classifyEdge(edgeM: number, radius: number, acc: number | null | undefined, h: Hysteresis = DEFAULT_HYSTERESIS): Zone {
  if (normaliseAccuracy(acc) > maxAccuracyM(radius, h)) return 'unusable';
  if (edgeM <= 0) return 'in';
  if (edgeM > leaveMarginM(radius, h)) return 'out';
  return 'band';
}
