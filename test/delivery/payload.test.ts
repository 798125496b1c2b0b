// The callback payload: reference §5 key for key, with its scalar types, plus our added keys.
import { describe, expect, it } from 'vitest';
import { buildCallbackPayload, layerBounds, placeholderUser } from '../../src/delivery/payload.js';
import { callbackPayloadText, PayloadTexts } from '../../src/delivery/payload-text.js';
import type { LayerDoc, PlaceDoc, TriggerDoc } from '../../src/store/documents.js';
import { userDoc } from './helpers.js';

const at = Date.parse('2012-05-04T17:45:09Z');
const layer: LayerDoc = {
  _id: '7ky', app_id: 'A1', type: 'normal', name: 'Test Layer', description: 'Not the layer', icon: 'https://x/logo.png', url: '',
  public: 1, public_userlist: 0, trigger_rate_limit: 30, extra: {}, created_at: 0,
};
const place: PlaceDoc = {
  _id: '2Np_', app_id: 'A1', layer_id: '7ky', name: 'Portland', description: '', latitude: 45.5165, longitude: -122.6764, radius: 200,
  extra: { team: 'red' }, created_at: 0,
};
const trigger: TriggerDoc = {
  _id: '2iav', app_id: 'A1', place_id: '2Np_', layer_id: '7ky', on_layer: false, type: 'callback', trigger_on: 'enter', trigger_after: 0,
  one_time: 0, text: 'ignored', url: 'http://requestb.in/1gt47ek1', extra: {}, created_at: 0,
};
const user = { ...userDoc('A1'), _id: 'Gf', username: 'aaronpk', devices: { apns_dev: [], apns_live: ['abc'], c2dm: [], gcm: [] } };

function build(over: Partial<Parameters<typeof buildCallbackPayload>[0]> = {}) {
  return buildCallbackPayload({
    app: { _id: 'A1' }, user, trigger, place, layer, bounds: layerBounds([place]), event_id: 'evt_1', triggered_on: 'enter', delay_s: 0, at,
    location: { date: at - 2000, latitude: 45.5166, longitude: -122.6765, horizontal_accuracy: 24, altitude: 0, speed: 0, raw: { battery: 80 } },
    ...over,
  });
}

describe('buildCallbackPayload', () => {
  it('has exactly the reference keys plus event_id, date, date_ts and location', () => {
    const p = build();
    expect(Object.keys(p).sort()).toEqual(['date', 'date_ts', 'event_id', 'layer', 'location', 'place', 'trigger', 'triggered_delay', 'triggered_on', 'user']);
    expect(Object.keys(p.layer).sort()).toEqual(
      ['bounds', 'description', 'extra', 'icon', 'layer_id', 'name', 'public', 'public_userlist', 'settings', 'subscription', 'trigger_rate_limit', 'type', 'user_id'],
    );
    expect(Object.keys(p.place).sort()).toEqual(
      ['active', 'description', 'display_name', 'extra', 'latitude', 'longitude', 'map', 'name', 'place_id', 'radius', 'time_from', 'time_to'],
    );
    expect(Object.keys(p.trigger).sort()).toEqual(['callback_url', 'extra', 'one_time', 'place_id', 'trigger_after', 'trigger_id', 'trigger_on', 'type']);
    expect(Object.keys(p.user).sort()).toEqual([
      'bio', 'devices', 'display_name', 'extra', 'has_custom_username', 'has_push_token', 'is_anonymous', 'name', 'profile_image',
      'public_geonote_email', 'public_geonotes', 'public_location', 'timezone', 'timezone_offset', 'twitter', 'user_id', 'username', 'website',
    ]);
  });

  it('keeps the example scalar types: strings in trigger and user, numbers in layer and place', () => {
    const p = build();
    expect(p.triggered_delay).toBe('0');
    expect(p.trigger).toMatchObject({ one_time: '0', trigger_after: '0', trigger_on: 'enter', type: 'callback', callback_url: trigger.url, place_id: '2Np_' });
    expect(p.user).toMatchObject({ is_anonymous: '0', has_custom_username: '1', has_push_token: '1', public_location: '0', public_geonotes: '1', user_id: 'Gf' });
    expect(p.user.devices).toEqual({ apns_dev: [], apns_live: ['abc'], c2dm: [], gcm: [] });
    expect(p.layer).toMatchObject({ public: 1, public_userlist: 0, trigger_rate_limit: 30, settings: false, subscription: false, layer_id: '7ky' });
    expect(p.place).toMatchObject({ active: 1, latitude: 45.5165, longitude: -122.6764, radius: 200, extra: { team: 'red' }, time_from: '00:00:00' });
  });

  it('dates the firing and the point in the user\'s timezone', () => {
    const p = build();
    expect(p.user.timezone).toBe('America/Los_Angeles');
    expect(p.user.timezone_offset).toBe('-0700');
    expect(p.date).toBe('2012-05-04T10:45:09-07:00');
    expect(p.date_ts).toBe(1336153509);
    expect(p.location).toEqual({
      date: '2012-05-04T10:45:07-07:00', date_ts: 1336153507,
      location: { type: 'point', position: { latitude: 45.5166, longitude: -122.6765, speed: 0, altitude: 0, heading: null, horizontal_accuracy: 24, vertical_accuracy: null } },
      raw: { battery: 80 },
    });
  });

  it('names the layer for a layer trigger, and carries text for a message trigger', () => {
    const p = build({ trigger: { ...trigger, on_layer: true, place_id: undefined, type: 'message', text: 'Hi', url: '' } });
    expect(p.trigger.layer_id).toBe('7ky');
    expect(p.trigger.place_id).toBeUndefined();
    expect(p.trigger.text).toBe('Hi');
    expect(p.trigger.callback_url).toBeUndefined();
  });

  it('reports triggered_delay from the dwell and works with the placeholder user', () => {
    const p = build({ delay_s: 90, user: placeholderUser('A1', at) });
    expect(p.triggered_delay).toBe('90');
    expect(p.user.user_id).toBe('test');
  });
});

describe('layerBounds', () => {
  it('is false without places and a box around the place circles otherwise', () => {
    expect(layerBounds([])).toBe(false);
    const b = layerBounds([place, { latitude: 45.5246, longitude: -122.6844, radius: 100 }]);
    if (!b) throw new Error('bounds expected');
    expect(b.sw.latitude).toBeLessThan(45.5165);
    expect(b.ne.latitude).toBeGreaterThan(45.5246);
    expect(b.center.latitude).toBeCloseTo((b.sw.latitude + b.ne.latitude) / 2, 6);
    expect(b.radius).toBeGreaterThan(500);
    expect(b.map).toContain('openstreetmap.org');
  });
});

describe('callbackPayloadText', () => {
  const input = (over: Partial<Parameters<typeof buildCallbackPayload>[0]> = {}): Parameters<typeof buildCallbackPayload>[0] => ({
    app: { _id: 'A1' }, user, trigger, place, layer, bounds: layerBounds([place]), event_id: 'evt_1', triggered_on: 'enter', delay_s: 0, at,
    location: { date: at - 2000, latitude: 45.5166, longitude: -122.6765, horizontal_accuracy: 24, altitude: 0, speed: 0, raw: { battery: 80 } },
    ...over,
  });
  // One memo of part texts for the whole block, as a delivery runtime keeps one.
  const texts = new PayloadTexts();
  const same = (i: Parameters<typeof buildCallbackPayload>[0]) => expect(callbackPayloadText(i, texts)).toBe(JSON.stringify(buildCallbackPayload(i)));

  it('is the serialised payload, for documents read once and reused (frozen) and for plain ones', () => {
    const frozen = {
      user: Object.freeze({ ...user, timezone: 'America/New_York', extra: { tier: 'gold', n: 3 } }),
      trigger: Object.freeze({ ...trigger }), place: Object.freeze({ ...place }), layer: Object.freeze({ ...layer }),
    };
    // Across a change of daylight saving time (its offset is the user part's one varying value),
    // in both orders of first use, for enter and leave, dwell delays and both kinds of trigger.
    const times = [Date.parse('2026-03-08T06:59:00Z'), Date.parse('2026-03-08T07:01:00Z'), Date.parse('2026-11-01T05:30:00Z'), at];
    for (const docs of [frozen, { user, trigger, place, layer }]) {
      for (const t of [...times, ...times.reverse()]) {
        same(input({ ...docs, at: t, event_id: `e_${t}` }));
        same(input({ ...docs, at: t, triggered_on: 'leave', delay_s: 90, location: { date: t, latitude: 1.5, longitude: -2.25, raw: null, uuid: 'u-1' } }));
      }
    }
  });

  it('follows a changed document, the layer bounds, a closed place window and another timezone', () => {
    const p = Object.freeze({ ...place });
    const l = Object.freeze({ ...layer });
    const u = Object.freeze({ ...user });
    const t = Object.freeze({ ...trigger });
    same(input({ place: p, layer: l, user: u, trigger: t }));
    // The same objects with other bounds, and the new versions of changed documents.
    same(input({ place: p, layer: l, user: u, trigger: t, bounds: false }));
    same(input({ place: Object.freeze({ ...p, name: 'Moved', radius: 350 }), layer: Object.freeze({ ...l, name: 'Renamed' }), user: u, trigger: t }));
    same(input({ place: p, layer: l, user: Object.freeze({ ...u, timezone: 'Asia/Kolkata', bio: 'new' }), trigger: Object.freeze({ ...t, type: 'message', text: 'hi', url: '' }) }));
    same(input({ place: p, layer: l, user: u, trigger: Object.freeze({ ...t, on_layer: true, one_time: 1, trigger_after: 60 }), app: { _id: 'A2' } }));
    // A place whose window closed before the firing is inactive, and active again for an earlier one.
    const windowed = Object.freeze({ ...p, date_to: at - 60_000 } as PlaceDoc);
    same(input({ place: windowed, layer: l, user: u, trigger: t }));
    same(input({ place: windowed, layer: l, user: u, trigger: t, at: at - 3_600_000 }));
    expect(JSON.parse(callbackPayloadText(input({ place: windowed, layer: l, user: u, trigger: t }), texts)).place.active).toBe(0);
  });

  it('serialises a user whose own fields hold the offset stand-in every time', () => {
    const odd = Object.freeze({ ...user, timezone: 'America/New_York', bio: '\u0000timezone_offset\u0000' });
    for (const t of [Date.parse('2026-01-10T12:00:00Z'), Date.parse('2026-07-10T12:00:00Z')]) same(input({ user: odd, at: t }));
  });
});
