// The answers of delivery forensics (trigger/history/attempts, trigger/history/redeliver) and the
// parts trigger/history shares with them: when a callback was delivered, and why a firing was late.
// For the OpenAPI document only, as response-bodies.ts.
import { Type } from '@sinclair/typebox';
import { doc } from './response-objects.js';

const closed = { additionalProperties: false } as const;
const Iso = Type.String({ description: 'ISO-8601 with the offset of the request\'s zone' });
const UnixSeconds = Type.Integer({ description: 'Unix seconds' });

/** Where a callback's delivery stands, as trigger/history shows it, with its delivery time. */
export const deliveryFields = {
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivering'), Type.Literal('delivered'), Type.Literal('dead')]),
  attempts: Type.Integer(),
  last_status: Type.Optional(Type.Integer({ description: 'the receiver\'s last HTTP status' })),
  last_error: Type.Optional(Type.String()),
  next_attempt_at: Type.Optional(Type.String({ description: 'when the next attempt is due, while a retry waits' })),
  next_attempt_at_ts: Type.Optional(Type.Integer()),
  delivered_at: Type.Optional(Type.String({ description: 'a delivered callback: when the receiver took it' })),
  delivered_at_ts: Type.Optional(Type.Integer()),
};

export const Late = Type.Object({
  kind: Type.Union([Type.Literal('point_late'), Type.Literal('dwell_grace'), Type.Literal('attempts_failed')], {
    description: 'point_late: the point reached the service late; dwell_grace: the dwell deadline passed while the service was down and waited for the grace after the restart; attempts_failed: its first attempts failed',
  }),
  late_s: Type.Number({ description: 'seconds from the device\'s time (or the dwell deadline) to when it went out' }),
  arrival_s: Type.Number({ description: 'seconds from the device\'s time to when the service received the point (or applied the dwell)' }),
  delivery_s: Type.Optional(Type.Number({ description: 'a callback: seconds from then to its delivery' })),
  failed_attempts: Type.Optional(Type.Integer({ description: 'a callback: attempts before the one that delivered it' })),
  grace_s: Type.Optional(Type.Number({ description: 'dwell_grace: the grace after a restart (DWELL_GRACE_MS)' })),
}, { ...closed, description: 'Only on a firing that went out more than late_after seconds (default 60) after its time' });

/** Time the service received the point, next to the device's `date`. */
export const receivedFields = {
  received_at: Type.Optional(Type.String({ description: 'when the service received the point behind it (a dwell: when it applied the deadline)' })),
  received_at_ts: Type.Optional(Type.Integer()),
};

const Redelivery = Type.Object({
  requested_at: Iso, requested_at_ts: UnixSeconds, requested_by: Type.String({ description: 'the requested_by label of the redeliver call (default api)' }),
}, closed);

const CallbackDelivery = Type.Object({ ...deliveryFields, redelivery: Type.Optional(Redelivery) }, closed);

export const Attempt = Type.Object({
  attempt: Type.Integer({ description: '1-based over the callback\'s life, redeliveries included' }),
  date: Iso, date_ts: UnixSeconds,
  duration_ms: Type.Integer(),
  outcome: Type.Union([Type.Literal('delivered'), Type.Literal('retry'), Type.Literal('dead')]),
  status_code: Type.Optional(Type.Integer({ description: 'the receiver\'s HTTP status' })),
  error_class: Type.Optional(Type.Union(['timeout', 'refused', 'reset', 'dns', 'tls', 'ssrf', 'other'].map((c) => Type.Literal(c)), {
    description: 'what failed when no HTTP status says it; ssrf: the address was refused as a callback target',
  })),
  error: Type.Optional(Type.String()),
  body: Type.Optional(Type.String({ description: 'the start of the receiver\'s answer (256 bytes at most)' })),
  redelivery: Type.Optional(Type.Object({ requested_by: Type.String() }, { ...closed, description: 'an attempt of a redelivery the application asked for' })),
}, closed);

export const FiringAttempts = Type.Object({
  event_id: Type.String(),
  type: Type.Union([Type.Literal('callback'), Type.Literal('message')]),
  gated: Type.Optional(Type.Literal(true)),
  gate: Type.Optional(Type.String()),
  url: Type.Optional(Type.String({ description: 'a callback: where it is sent' })),
  delivery: Type.Optional(CallbackDelivery),
  attempts: Type.Array(Attempt, { description: 'oldest first; empty for a message or a gated firing' }),
  paging: doc('Paging'),
}, { ...closed, description: 'One firing\'s delivery attempts' });

export const Redelivered = Type.Object({
  result: Type.Union([Type.Literal('sent'), Type.Literal('queued'), Type.Literal('failed')], {
    description: 'sent: the receiver took it; failed: it is dead again; queued: the retry schedule goes on',
  }),
  event_id: Type.String(),
  delivery: CallbackDelivery,
  attempt: Type.Optional(Attempt),
}, { ...closed, description: 'The callback sent again with the same event id and payload (one attempt now)' });
