// The host's index of the engine's geofences: what a change to one trigger, place or layer is
// diffed against, and the layer a firing is recorded under.
import { describe, expect, it } from 'vitest';
import { HostFences } from '../../src/engine/host-fences.js';
import { fenceKey, type Geofence } from '../../workers/protocol.js';

const fence = (t: string, p: string, layerId: string): Geofence => ({
  key: fenceKey(t, p), triggerId: t, placeId: p, layerId, lat: 45, lon: -122, radius: 50,
  triggerOn: 'enter', triggerAfterS: 0, oneTime: false, rateLimitS: 0, window: null,
});
const keys = (fs: Geofence[]) => fs.map((f) => f.key).sort();

describe('HostFences', () => {
  it('answers by trigger, place and layer, and follows diffs (a place moving to another layer included)', () => {
    const idx = new HostFences([fence('t1', 'p1', 'L1'), fence('t1', 'p2', 'L1'), fence('t2', 'p1', 'L1')]);
    expect(keys(idx.ofTrigger('t1'))).toEqual(['t1:p1', 't1:p2']);
    expect(keys(idx.ofPlace('p1'))).toEqual(['t1:p1', 't2:p1']);
    idx.apply({ upsert: [fence('t1', 'p2', 'L2')], remove: ['t2:p1'] });
    expect(keys(idx.ofLayer('L1'))).toEqual(['t1:p1']);
    expect(keys(idx.ofLayer('L2'))).toEqual(['t1:p2']);
    expect(idx.get('t1:p2')?.layerId).toBe('L2');
    expect(idx.ofTrigger('t2')).toEqual([]);
    expect([...idx.all()]).toHaveLength(2);
  });

  it('keeps every key of a trigger as its geofences come and go one by one, the same one twice included', () => {
    const idx = new HostFences();
    const places = ['p1', 'p2', 'p3'];
    for (const [i, p] of places.entries()) {
      idx.apply({ upsert: [fence('t', p, 'L')], remove: [] });
      expect(keys(idx.ofTrigger('t'))).toEqual(places.slice(0, i + 1).map((q) => `t:${q}`));
    }
    // An upsert of a key already there replaces it; nothing doubles.
    idx.apply({ upsert: [fence('t', 'p1', 'L')], remove: [] });
    expect(keys(idx.ofTrigger('t'))).toEqual(['t:p1', 't:p2', 't:p3']);
    for (const [i, p] of places.entries()) {
      idx.apply({ upsert: [], remove: [`t:${p}`] });
      expect(keys(idx.ofTrigger('t'))).toEqual(places.slice(i + 1).map((q) => `t:${q}`));
      expect(keys(idx.ofPlace(p))).toEqual([]);
    }
    expect(idx.ofLayer('L')).toEqual([]);
    idx.apply({ upsert: [fence('t', 'p2', 'L')], remove: [] });
    expect(keys(idx.ofLayer('L'))).toEqual(['t:p2']);
  });
});
