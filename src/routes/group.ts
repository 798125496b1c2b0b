// /1/group/*: real-time groups (reference §4.7), with an application or a user token. The rules
// of who sees, changes, joins and posts to a group are services/groups.ts's; messages and member
// locations are services/group-activity.ts's.
import type { FastifyRequest } from 'fastify';
import type { RouteApp } from './route-app.js';
import {
  GroupBody, GroupCreated, GroupInfo, GroupLast, GroupList, GroupLocations, GroupLocationsQuery, GroupMembers, GroupMessageBody,
  GroupMessagePosted, GroupMessages, GroupPaging, GroupSubject, GroupSubscriptionsQuery, GroupTokenParams, Membership,
} from '../schemas/groups.js';
import { TokenFields } from '../schemas/common.js';
import { ResultOk } from '../schemas/response-bodies.js';
import { Type } from '@sinclair/typebox';
import { openApi } from '../http/openapi.js';
import {
  createGroup, deleteGroup, groupInfoOf, groupMembers, groupSubscriptions, joinGroup, leaveGroup, listGroups, updateGroup,
} from '../services/groups.js';
import { groupLast, groupLocations, groupMessages, postGroupMessage } from '../services/group-activity.js';
import { requestZone } from '../services/request-zone.js';
import { getOrPost } from './get-or-post.js';

const TokenQuery = Type.Object(TokenFields);

const tokenOf = (request: { params: { token: string } }) => request.params.token;
/** The request's zone: its Timezone header's, else the calling user's. */
const zoneOf = (request: FastifyRequest) => requestZone(request, request.auth.user);
/** `user_id` from the body, else the query string (of a POST, or of the GET form). */
const subjectOf = (request: { body?: { user_id?: string }; query: { user_id?: string } }) => ({
  user_id: request.body?.user_id ?? request.query.user_id,
});

export async function groupRoutes(app: RouteApp) {
  const tags = ['group'];
  const ctx = app.ctx;
  const either = app.guard('appToken', 'userToken');
  const params = GroupTokenParams;

  app.post('/group/create', { schema: { tags, body: GroupBody }, config: openApi({ ok: GroupCreated }), preValidation: either }, async (request) =>
    createGroup(ctx, request.auth, request.body));

  app.post('/group/update/:token', { schema: { tags, params, body: GroupBody }, config: openApi({ ok: GroupInfo, errors: [403] }), preValidation: either }, async (request) =>
    updateGroup(ctx, request.auth, tokenOf(request), request.body, zoneOf(request)));

  getOrPost(app, '/group/delete/:token', { schema: { tags, params, body: TokenQuery }, config: openApi({ ok: ResultOk, errors: [403] }), preValidation: either }, async (request) =>
    deleteGroup(ctx, request.auth, tokenOf(request)));

  for (const [action, handler] of [['join', joinGroup], ['leave', leaveGroup]] as const) {
    getOrPost(app, `/group/${action}/:token`, {
      schema: { tags, params, querystring: GroupSubject, body: GroupSubject },
      config: openApi({ ok: Membership }),
      preValidation: either,
    }, async (request) => handler(ctx, request.auth, tokenOf(request), subjectOf(request)));
  }

  app.post('/group/message/:token', { schema: { tags, params, body: GroupMessageBody }, config: openApi({ ok: GroupMessagePosted, errors: [403] }), preValidation: either }, async (request) =>
    postGroupMessage(ctx, request.auth, tokenOf(request), request.body));

  app.get('/group/list', { schema: { tags, querystring: GroupPaging }, config: openApi({ ok: GroupList }), preValidation: either }, async (request) =>
    listGroups(ctx, request.auth, request.query, zoneOf(request)));

  app.get('/group/info/:token', { schema: { tags, params, querystring: TokenQuery }, config: openApi({ ok: GroupInfo }), preValidation: either }, async (request) =>
    groupInfoOf(ctx, request.auth, tokenOf(request), zoneOf(request)));

  app.get('/group/members/:token', { schema: { tags, params, querystring: TokenQuery }, config: openApi({ ok: GroupMembers }), preValidation: either }, async (request) =>
    groupMembers(ctx, request.auth, tokenOf(request)));

  app.get('/group/subscriptions', { schema: { tags, querystring: GroupSubscriptionsQuery }, config: openApi({ ok: GroupList, errors: [404] }), preValidation: either }, async (request) =>
    groupSubscriptions(ctx, request.auth, request.query, zoneOf(request)));

  app.get('/group/messages/:token', { schema: { tags, params, querystring: GroupPaging }, config: openApi({ ok: GroupMessages }), preValidation: either }, async (request) =>
    groupMessages(ctx, request.auth, tokenOf(request), request.query, zoneOf(request)));

  app.get('/group/locations/:token', { schema: { tags, params, querystring: GroupLocationsQuery }, config: openApi({ ok: GroupLocations }), preValidation: either }, async (request) =>
    groupLocations(ctx, request.auth, tokenOf(request), request.query, zoneOf(request)));

  app.get('/group/last/:token', { schema: { tags, params, querystring: TokenQuery }, config: openApi({ ok: GroupLast }), preValidation: either }, async (request) =>
    groupLast(ctx, request.auth, tokenOf(request), zoneOf(request)));
}
