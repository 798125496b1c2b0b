import { describe, expect, it } from 'vitest';
import {
  expandAll,
  onLayerDeleted,
  onLayerSaved,
  onPlaceDeleted,
  onPlaceSaved,
  onTriggerDeleted,
  onTriggerSaved,
  toGeofence,
} from '../../src/engine/geofences.js';
import type { LayerDoc, PlaceDoc, TriggerDoc } from '../../src/store/documents.js';
import type { Geofence } from '../../workers/protocol.js';

const layer = (id: string, rate = 0): LayerDoc => ({
  _id: id,
  app_id: 'app',
  type: 'normal',
  name: id,
  description: '',
  icon: '',
  url: '',
  public: 0,
  public_userlist: 0,
  trigger_rate_limit: rate,
  extra: {},
  created_at: 0,
});
const place = (id: string, layerId: string, over: Partial<PlaceDoc> = {}): PlaceDoc => ({
  _id: id,
  app_id: 'app',
  layer_id: layerId,
  name: id,
  description: '',
  latitude: 45,
  longitude: -122,
  radius: 150,
  extra: {},
  created_at: 0,
  ...over,
});
const trigger = (id: string, over: Partial<TriggerDoc>): TriggerDoc => ({
  _id: id,
  app_id: 'app',
  layer_id: 'L1',
  on_layer: false,
  type: 'callback',
  trigger_on: 'enter',
  trigger_after: 0,
  one_time: 0,
  text: '',
  url: 'https://example.test/cb',
  extra: {},
  created_at: 0,
  ...over,
});

const layers = [layer('L1', 60), layer('L2')];
const places = [place('a', 'L1'), place('b', 'L1', { latitude: 46 }), place('c', 'L2')];
const triggers = [
  trigger('tp', { place_id: 'a', trigger_after: 120, one_time: 1, time_from: '09:00:00', time_to: '17:00:00' }),
  trigger('tl', { on_layer: true, layer_id: 'L1', trigger_on: 'leave' }),
];
const keys = (fs: Geofence[]) => fs.map((f) => f.key).sort();

describe('geofences from documents', () => {
  it('a place trigger gives one geofence, a layer trigger one per place of its layer', () => {
    const all = expandAll({ triggers, places, layers });
    expect(keys(all)).toEqual(['tl:a', 'tl:b', 'tp:a']);
  });

  it('carries the rule, the layer rate limit and the merged windows', () => {
    const g = toGeofence(triggers[0]!, place('a', 'L1', { date_to: 5000, time_from: '12:00:00', time_to: '20:00:00' }), layers[0]);
    expect(g).toMatchObject({
      key: 'tp:a',
      layerId: 'L1',
      lat: 45,
      lon: -122,
      radius: 150,
      triggerOn: 'enter',
      triggerAfterS: 120,
      oneTime: true,
      rateLimitS: 60,
      window: { dateTo: 5000, daily: [{ from: 9 * 3600, to: 17 * 3600 }, { from: 12 * 3600, to: 20 * 3600 }] },
    });
  });

  it('a place added later to a layer gets the layer triggers', () => {
    const current = expandAll({ triggers, places, layers });
    const d = onPlaceSaved(place('new', 'L1'), triggers, layers, current);
    expect(keys(d.upsert)).toEqual(['tl:new']);
    expect(d.remove).toEqual([]);
  });

  it('a place moved to another layer loses the old layer triggers', () => {
    const current = expandAll({ triggers, places, layers });
    const d = onPlaceSaved(place('b', 'L2'), triggers, layers, current);
    expect(d.upsert).toEqual([]);
    expect(d.remove).toEqual(['tl:b']);
  });

  it('a moved place updates its geofences in place', () => {
    const current = expandAll({ triggers, places, layers });
    const d = onPlaceSaved(place('a', 'L1', { radius: 300 }), triggers, layers, current);
    expect(keys(d.upsert)).toEqual(['tl:a', 'tp:a']);
    expect(d.upsert.every((f) => f.radius === 300)).toBe(true);
    expect(d.remove).toEqual([]);
  });

  it('a trigger moved to another place, and deletions', () => {
    const current = expandAll({ triggers, places, layers });
    const moved = onTriggerSaved(trigger('tp', { place_id: 'b' }), places, layers, current);
    expect(keys(moved.upsert)).toEqual(['tp:b']);
    expect(moved.remove).toEqual(['tp:a']);
    expect(onTriggerDeleted('tl', current).remove.sort()).toEqual(['tl:a', 'tl:b']);
    expect(onPlaceDeleted('a', current).remove.sort()).toEqual(['tl:a', 'tp:a']);
    expect(onLayerDeleted('L1', current).remove.sort()).toEqual(['tl:a', 'tl:b', 'tp:a']);
  });

  it('a layer update changes the rate limit of its geofences only', () => {
    const current = expandAll({ triggers, places, layers });
    const d = onLayerSaved(layer('L1', 0), current);
    expect(keys(d.upsert)).toEqual(['tl:a', 'tl:b', 'tp:a']);
    expect(d.upsert.every((f) => f.rateLimitS === 0)).toBe(true);
    expect(onLayerSaved(layer('L1', 60), current).upsert).toEqual([]);
  });
});
