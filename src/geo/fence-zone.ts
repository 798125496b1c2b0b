// The zone rule applied to one geofence of any shape (machines/README.md "Zones"): the distance the
// rule reads, and the zone it gives. Every caller that classifies a point against a geofence (the
// shards, the replay, the one-time release, the inspector's explanations) goes through here, so a
// circle and a polygon can never be judged by two rules.
import { haversineM } from './distance.js';
import { classifyEdge, classifyZone, DEFAULT_HYSTERESIS, leaveMarginM, type Hysteresis, type Zone } from './hysteresis.js';
import type { Shape } from './shape.js';
import { edgeDistanceM, edgeZoneM } from './shape-measure.js';

export interface ZoneFence {
  /** The centre: a circle's, or the one a shape answers with (shape-centre.ts). */
  lat: number;
  lon: number;
  /** A circle's radius, or a shape's (the largest circle inside it): it scales the margin and the accuracy bound. */
  radius: number;
  /** Absent for a circle. */
  shape?: Shape;
}

/**
 * What the rule reads of a point: metres from the centre for a circle, metres outside the boundary
 * (negative inside) for a shape.
 */
export function fenceDistanceM(f: ZoneFence, lat: number, lon: number): number {
  return f.shape === undefined ? haversineM(lat, lon, f.lat, f.lon) : edgeDistanceM(f.shape, lat, lon);
}

/**
 * fenceDistanceM as cheap as the zone allows, for the hot path: exact for a circle; for a shape, how
 * deep inside is not measured, nor how far within the margin (shape-measure.ts edgeZoneM). It gives
 * the same zone; whoever shows the distance measures it again with fenceDistanceM.
 */
export function fenceMeasureM(f: ZoneFence, lat: number, lon: number, h: Hysteresis = DEFAULT_HYSTERESIS): number {
  return f.shape === undefined ? haversineM(lat, lon, f.lat, f.lon) : edgeZoneM(f.shape, lat, lon, leaveMarginM(f.radius, h));
}

/** The zone of a point at `d` (fenceDistanceM or fenceMeasureM) with accuracy `acc`. */
export function fenceZone(f: ZoneFence, d: number, acc: number | null | undefined, h: Hysteresis = DEFAULT_HYSTERESIS): Zone {
  return f.shape === undefined ? classifyZone(d, f.radius, acc, h) : classifyEdge(d, f.radius, acc, h);
}

/** Metres outside the boundary (negative inside) for a point at `d` (fenceDistanceM). */
export function outsideM(f: ZoneFence, d: number): number {
  return f.shape === undefined ? d - f.radius : d;
}

/** The leave margin of the geofence, metres beyond its boundary. */
export function fenceMarginM(f: ZoneFence, h: Hysteresis = DEFAULT_HYSTERESIS): number {
  return leaveMarginM(f.radius, h);
}
