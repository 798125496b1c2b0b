// Delivery forensics under /1/trigger/history/* (docs/api.md "Delivery forensics"): a firing's
// delivery attempts, and a callback sent again at the application's request.
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { listAttempts, redeliver } from '../services/firing-attempts.js';
import { PagingQuery, TokenFields } from '../schemas/common.js';
import { rejectUnknown } from '../http/known-params.js';
import { pageRequest } from '../services/paging.js';
import { headerZoneOf, requestTimeZone } from '../services/request-zone.js';
import { FiringAttempts, Redelivered } from '../schemas/firing-forensics.js';
import { openApi } from '../http/openapi.js';

/** A trigger/history entry's event_id (delivery/firings.ts EVENT_ID_PATTERN). */
const EventId = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_:-]+$', description: 'a trigger/history entry\'s event_id' });
const AttemptsQuery = Type.Object({ ...TokenFields, ...PagingQuery, event_id: EventId });
const RedeliverBody = Type.Object({
  ...TokenFields,
  event_id: EventId,
  requested_by: Type.Optional(Type.String({ minLength: 1, maxLength: 40, pattern: '^[A-Za-z0-9_.:-]+$', description: 'who asks, recorded with its attempts (default api)' })),
});

export async function triggerAttemptRoutes(app: RouteApp) {
  const tags = ['trigger'];
  const ctx = app.ctx;

  app.get('/trigger/history/attempts', {
    schema: { tags, querystring: AttemptsQuery }, config: openApi({ ok: FiringAttempts, errors: [404] }), preValidation: app.guard('userToken', 'appToken'),
  }, async (request) => {
    const q = request.query;
    rejectUnknown(q, AttemptsQuery, 'trigger/history/attempts');
    const auth = request.auth;
    // A user token reads its own firings only.
    const who = { appId: auth.app._id, ...(auth.kind === 'user' ? { userId: auth.user!._id } : {}) };
    return listAttempts(ctx, who, q.event_id, pageRequest(q), requestTimeZone(headerZoneOf(request), auth.user ?? null));
  });

  // A POST only: it acts (no historical client calls it with GET).
  app.post('/trigger/history/redeliver', {
    schema: { tags, body: RedeliverBody }, config: openApi({ ok: Redelivered, errors: [404, 409, 429] }), preValidation: app.guard('appToken'),
  }, async (request) => {
    const b = request.body;
    return redeliver(ctx, request.auth.app._id, b.event_id, b.requested_by ?? 'api', requestTimeZone(headerZoneOf(request), null));
  });
}
