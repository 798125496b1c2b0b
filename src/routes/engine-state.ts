// /1/trigger/state: the machine inspector (services/machine-inspector.ts), application token only.
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { Flag, Id, IdParams, Offset, TokenFields } from '../schemas/common.js';
import { triggerState, userMachines } from '../services/machine-inspector.js';
import { pageRequest } from '../services/paging.js';
import { userPairs } from '../services/user-pairs.js';
import { headerZoneOf } from '../services/request-zone.js';
import { TriggerState, UserMachines } from '../schemas/response-bodies.js';
import { openApi } from '../http/openapi.js';

export async function engineStateRoutes(app: RouteApp) {
  const tags = ['trigger'];
  const guard = app.guard('appToken');

  app.get('/trigger/state/:id', {
    schema: { tags, params: IdParams, querystring: Type.Object({ ...TokenFields, user_id: Type.Optional(Id), place_id: Type.Optional(Id) }) },
    config: openApi({ ok: TriggerState }),
    preValidation: guard,
  }, async (request) => triggerState(
    app.ctx, request.auth.app._id, request.params.id, request.query,
    headerZoneOf(request),
  ));

  app.get('/trigger/state', {
    schema: {
      tags,
      querystring: Type.Object({
        ...TokenFields, user_id: Id,
        include_outside: Type.Optional(Flag),
        offset: Type.Optional(Offset),
        limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: 'with include_outside: pairs per page (default 25; 0: the most, 1000)' })),
      }),
    },
    config: openApi({ ok: UserMachines, errors: [400, 404] }),
    preValidation: guard,
  }, async (request) => {
    const q = request.query;
    if (!q.include_outside) return userMachines(app.ctx, request.auth.app._id, q.user_id, headerZoneOf(request));
    return userPairs(app.ctx, request.auth.app._id, q.user_id, pageRequest(q), headerZoneOf(request));
  });
}
