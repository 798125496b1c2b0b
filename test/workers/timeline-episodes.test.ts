// The lean timeline (machines/README.md "Timeline"): a point that moves nothing is an entry only as
// the first of its kind in an episode of its pair, the stay in one state near the place. GPS noise
// going in and out of the band, or a poor fix now and then inside, is one entry per episode, not one
// per return; a transition, or the user going away and coming back, starts a new episode.
import { describe, expect, it } from 'vitest';
import { destinationPoint } from '../../src/geo/distance.js';
import { fenceKey, type Geofence } from '../../workers/protocol.js';
import { ShardState } from '../../workers/shard-state.js';

const C = { lat: 45.52, lon: -122.68 };
const T0 = Date.UTC(2026, 0, 5, 12);
const fence: Geofence = {
  key: fenceKey('t', 'p'), triggerId: 't', placeId: 'p', layerId: 'L1', lat: C.lat, lon: C.lon, radius: 100,
  triggerOn: 'enter', triggerAfterS: 0, oneTime: false, rateLimitS: 0, window: null,
};
// Metres from the centre of the 100 m place (leave margin 20 m): in, in the band, just out (north
// east, inside the place's box, so the shard looks at the place for it), far away.
const IN = 50;
const BAND = 110;
const OUT: [number, number, number] = [130, 5, 45];
const FAR = 5000;

/** The entries of a walk, one point a minute, as `kind:note-or-event`; a step is metres east, or [metres, accuracy, bearing]. */
function walk(steps: Array<number | [number, number] | [number, number, number]>): string[] {
  const s = new ShardState({ timeline: true });
  s.load({ fences: [fence], users: [{ userId: 'u', layers: ['L1'] }] });
  const entries: string[] = [];
  steps.forEach((st, i) => {
    const [d, acc, bearing] = typeof st === 'number' ? [st, 5, 90] : [st[0], st[1], st[2] ?? 90];
    const p = destinationPoint(C.lat, C.lon, bearing, d);
    const out = s.applyPoints([{ userId: 'u', at: T0 + (i + 1) * 60_000, lat: p.lat, lon: p.lon, acc }]);
    for (const t of out.timeline ?? []) entries.push(`${t.kind}:${t.note ?? t.event}`);
  });
  return entries;
}

describe('points that move nothing, per episode', () => {
  it('outside, in and out of the band: one band entry while the user stays near', () => {
    expect(walk([OUT, BAND, OUT, BAND, OUT, BAND, BAND, OUT])).toEqual(['point:band']);
  });

  it('inside, poor fixes between good ones: one entry for the visit; the band on the way out: one', () => {
    expect(walk([IN, [IN, 400], IN, [IN, 400], IN, BAND, IN, BAND, OUT])).toEqual([
      'fired:enter', 'point:unusable_accuracy', 'point:band', 'transition:leave',
    ]);
  });

  it('a transition starts a new episode: band before the entry and again after the leave', () => {
    expect(walk([BAND, IN, OUT, BAND, OUT, BAND])).toEqual(['point:band', 'fired:enter', 'transition:leave', 'point:band']);
  });

  it('a user who went away and came back: a new band entry', () => {
    expect(walk([BAND, OUT, FAR, FAR, OUT, BAND, OUT, BAND])).toEqual(['point:band', 'point:band']);
  });
});
