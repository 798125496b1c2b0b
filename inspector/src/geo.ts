// Distances and the hysteresis band as the engine draws them (the constants come from the service:
// /inspector/settings.json).
import type { Settings } from './api';

const R = 6_371_008.8;
const rad = (d: number) => (d * Math.PI) / 180;

export function distanceM(aLat: number, aLon: number, bLat: number, bLon: number): number {
  const dLat = rad(bLat - aLat);
  const dLon = rad(bLon - aLon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(aLat)) * Math.cos(rad(bLat)) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Beyond the radius plus this margin a point is outside; between the two it changes nothing. */
export function leaveMarginM(radius: number, s: Settings): number {
  return Math.max(s.hysteresis.leave_margin_min_m, s.hysteresis.leave_margin_ratio * radius);
}
