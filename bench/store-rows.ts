// Rows shaped like the service's, for the store benchmarks: a callback firing with a signed
// payload of the real size (~2.8 kB line) and its attempt log entry; and the location path's rows:
// a point (history or last location), a machine record, a timeline entry.
import type { MachineRow, PointRow, TimelineRow } from '../src/store/documents.js';
import type { AttemptRecord, NewFiring } from '../src/store/firings.js';

// Many short quoted keys and values, so escaping costs what it does.
const field = (i: number) => [`key_${i}`, i % 3 === 0 ? i * 1.5 : `value ${i} "quoted"`];
const fields = Object.fromEntries(Array.from({ length: 90 }, (_, i) => field(i)));
const payload = JSON.stringify(fields);
/** A payload of its own (one string per row, as real firings have). */
export const payloadOf = (eventId: string) => JSON.stringify({ event_id: eventId, ...fields });

/** A callback firing as recordFirings stores it: pending, due now, its payload text once. */
export const callbackFiringRow = (id: string, n: number): NewFiring => ({
  event_id: id, app_id: 'app1', user_id: `user${n % 2000}`, trigger_id: 'trig1', place_id: `place${n % 5000}`, layer_id: 'layer1',
  type: 'callback', triggered_on: 'enter', delay_s: 0, date: 1_700_000_000_000 + n, received_at: 1_700_000_000_000 + n,
  url: 'http://127.0.0.1:9/cb', payload, status: 'pending', next_attempt_at: n, created_at: n,
});

/** The attempt that delivered it. */
export const attemptRow = (id: string, n: number): AttemptRecord => ({
  event_id: id, attempt: 1, app_id: 'app1', at: n, duration_ms: 3, status_code: 200, body: 'ok', outcome: 'delivered',
});

/** A point as location/update stores it (the n-th: newer than every earlier n), for user `user`. */
export const pointRow = (user: number, n: number): PointRow => ({
  app_id: 'app1', user_id: `user${user}`, uuid: `0b6c1a6e-8d7f-4a51-9b0e-${String(n).padStart(12, '0')}`, own_uuid: false,
  date: 1_700_000_000_000 + n, latitude: 45.5 + (n % 1000) * 1e-5, longitude: -122.6 - (n % 997) * 1e-5, horizontal_accuracy: 12,
  speed: 3.2, altitude: null, heading: null, vertical_accuracy: null, raw: '{"battery":80}', client: null, received_at: 1_700_000_000_000 + n,
});

/** A pair's machine record moved by a point (`n` picks the pair among 5,000). */
export const machineRow = (n: number): MachineRow => ({
  app_id: 'app1', user_id: `user${n % 2000}`, trigger_id: `trig${n % 7}`, place_id: `place${n % 5000}`, state: 'inside',
  since: 1_700_000_000_000 + n, entered_at: 1_700_000_000_000 + n, deadline: null, last_point_at: 1_700_000_000_000 + n,
  transitions: `[{"from":"outside","to":"inside","at":${1_700_000_000_000 + n},"reason":"enter","outcome":"fired"}]`,
  point: { date: 1_700_000_000_000 + n, latitude: 45.5, longitude: -122.6, horizontal_accuracy: 12 }, updated_at: 1_700_000_000_000 + n,
});

/** A decision timeline entry: a firing with the point behind it. */
export const timelineRow = (n: number): TimelineRow => ({
  app_id: 'app1', user_id: `user${n % 2000}`, trigger_id: `trig${n % 7}`, place_id: `place${n % 5000}`, layer_id: 'layer1', kind: 'fired',
  event: 'enter', from: 'outside', to: 'inside', gate: null, note: null, point_date: 1_700_000_000_000 + n, latitude: 45.5, longitude: -122.6,
  horizontal_accuracy: 12, zone: 'in', distance_m: 42.5, firing_id: `user${n % 2000}:trig${n % 7}:place${n % 5000}:enter:${1_700_000_000_000 + n}`,
  at: 1_700_000_000_000 + n, received_at: 1_700_000_000_000 + n,
});
