// /1/user/*: creating and managing an application's users with its API key and secret
// (reference §4.6). An application token is accepted wherever the secret is.
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { ClientFields, IdParams, PagingQuery } from '../schemas/common.js';
import { CreateAnonBody, CreateUserBody, UpdateUserBody } from '../schemas/users.js';
import { userRecord } from '../services/profile.js';
import { findUsers, type UserFind } from '../services/user-search.js';
import {
  createAnonUser, createNamedUser, deleteUser, listUsers, updateUser,
} from '../services/users.js';
import { Deleted, NamedUserCreated, UserCreated, UserList } from '../schemas/response-bodies.js';
import { SecureDelete } from '../schemas/method-bodies.js';
import { secureDelete } from '../services/secure-delete.js';
import { requireUser } from '../services/acting-user.js';
import { doc } from '../schemas/response-objects.js';
import { openApi } from '../http/openapi.js';
import { getOrPost } from './get-or-post.js';

export async function userRoutes(app: RouteApp) {
  const tags = ['user'];
  const ctx = app.ctx;
  const managed = app.guard('clientSecret', 'appToken');

  app.post('/user/create_anon', { schema: { tags, body: CreateAnonBody }, config: openApi({ ok: UserCreated, errors: [404, 409] }), preValidation: app.guard('clientKey') }, async (request) =>
    createAnonUser(ctx, request.auth, request.body ?? {}));

  app.post('/user/create', { schema: { tags, body: CreateUserBody }, config: openApi({ ok: NamedUserCreated, errors: [404, 409] }), preValidation: app.guard('clientKey') }, async (request) =>
    createNamedUser(ctx, request.auth, request.body ?? {}));

  app.get('/user/list', {
    schema: {
      tags,
      querystring: Type.Object({
        ...PagingQuery, ...ClientFields,
        q: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'a user id, the start of a username, or part of a name or display name (any case)' })),
        sort: Type.Optional(Type.Union([Type.Literal('created'), Type.Literal('recent')], { description: '`recent`: the users whose last point is newest first' })),
      }),
    },
    config: openApi({ ok: UserList, errors: [400] }),
    preValidation: managed,
  }, async (request) => {
    const query = request.query as UserFind;
    // Without q or sort, the reference's answer as ever.
    return query.q !== undefined || query.sort !== undefined ? findUsers(ctx, request.auth.app._id, query) : listUsers(ctx, request.auth.app._id, query);
  });

  app.get('/user/info/:id', { schema: { tags, params: IdParams }, config: openApi({ ok: doc('User') }), preValidation: managed }, async (request) => {
    const user = await requireUser(ctx, request.auth.app._id, request.params.id);
    return userRecord(user, ctx.now());
  });

  app.post('/user/update/:id', { schema: { tags, params: IdParams, body: UpdateUserBody }, config: openApi({ ok: doc('User'), errors: [409] }), preValidation: managed }, async (request) =>
    updateUser(ctx, request.auth.app._id, request.params.id, request.body ?? {}));

  getOrPost(app, '/user/delete/:id', { schema: { tags, params: IdParams }, config: openApi({ ok: Deleted }), preValidation: managed }, async (request) =>
    deleteUser(ctx, request.auth.app._id, request.params.id));

  // geoloqi-ruby's `user/list/ID`: one user, in user/list's shape.
  app.get('/user/list/:id', { schema: { tags, params: IdParams, querystring: Type.Object(ClientFields) }, config: openApi({ ok: UserList }), preValidation: managed }, async (request) => {
    const user = await requireUser(ctx, request.auth.app._id, request.params.id);
    return { users: [userRecord(user, ctx.now())], paging: { limit: 25, total: 1 } };
  });

  app.post('/user/secure_delete/:id', {
    schema: { tags, params: IdParams, querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 64 })) }), body: Type.Object({ ...ClientFields, token: Type.Optional(Type.String({ maxLength: 64 })) }) },
    config: openApi({ ok: SecureDelete }),
    preValidation: managed,
  }, async (request) => {
    // The token may come in the query string or the body (reference §4.6).
    const token = request.body?.token ?? request.query.token;
    return secureDelete(ctx, request.auth.app, request.params.id, token);
  });
}
