// /1/trigger/timeline and /1/trigger/replay: the engine's decisions for a user (services/timeline.ts)
// and the dry run of a track against the current triggers (services/replay.ts). Application token.
import type { RouteApp } from './route-app.js';
import { openApi } from '../http/openapi.js';
import { REPLAY_BODY_LIMIT, ReplayBody, ReplayResult, TimelineList, TimelineQuery } from '../schemas/timeline.js';
import { headerZoneOf } from '../services/request-zone.js';
import { replay } from '../services/replay.js';
import { listTimeline } from '../services/timeline.js';

export async function triggerTimelineRoutes(app: RouteApp) {
  const tags = ['trigger'];
  const guard = app.guard('appToken');

  app.get('/trigger/timeline', {
    schema: { tags, querystring: TimelineQuery },
    config: openApi({ ok: TimelineList, errors: [404] }),
    preValidation: guard,
  }, async (request) => listTimeline(app.ctx, request.auth.app._id, request.query, headerZoneOf(request)));

  app.post('/trigger/replay', {
    schema: { tags, body: ReplayBody },
    bodyLimit: REPLAY_BODY_LIMIT,
    config: openApi({ ok: ReplayResult, errors: [404, 413, 429, 503] }),
    preValidation: guard,
  }, async (request) => replay(app.ctx, request.auth.app._id, request.body, headerZoneOf(request)));
}
