// /1/account/*: what a logged-in user's app does with the user token (reference §4.9).
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { AccountProfileBody } from '../schemas/users.js';
import { userRecord } from '../services/profile.js';
import { addDeviceToken, type DeviceKind } from '../services/device-tokens.js';
import { updateUser, usernameAvailable, type ProfileFields } from '../services/users.js';
import { ProfileUpdated, ResponseOk, ResultOk, Username, UsernameCheck } from '../schemas/response-bodies.js';
import { doc } from '../schemas/response-objects.js';
import { Connections, PermanentToken, Privacy } from '../schemas/method-bodies.js';
import { connectionsOf, privacyOf, setPrivacy } from '../services/privacy.js';
import { permanentToken } from '../services/permanent-token.js';
import { requestZone } from '../services/request-zone.js';
import { Flag, TokenFields } from '../schemas/common.js';
import { openApi } from '../http/openapi.js';
import { getOrPost } from './get-or-post.js';

const PushToken = Type.String({ minLength: 1, maxLength: 4096 });

export async function accountRoutes(app: RouteApp) {
  const tags = ['account'];
  const ctx = app.ctx;
  const user = app.guard('userToken');

  app.get('/account/profile', { schema: { tags }, config: openApi({ ok: doc('User') }), preValidation: user }, async (request) => userRecord(request.auth.user!, ctx.now()));

  app.post('/account/profile', { schema: { tags, body: AccountProfileBody }, config: openApi({ ok: ProfileUpdated, errors: [409] }), preValidation: user }, async (request) => {
    const profile = await updateUser(ctx, request.auth.app._id, request.auth.user!._id, request.body ?? {});
    return { result: 'ok', ...profile };
  });

  app.get('/account/username', { schema: { tags }, config: openApi({ ok: Username }), preValidation: user }, async (request) => ({ username: request.auth.user!.username }));

  app.post('/account/username', {
    schema: { tags, body: Type.Object({ ...TokenFields, username: Type.String({ minLength: 1, maxLength: 64 }) }) },
    config: openApi({ ok: Username, errors: [409] }),
    preValidation: user,
  }, async (request) => {
    const { username } = request.body;
    const profile = await updateUser(ctx, request.auth.app._id, request.auth.user!._id, { desired_username: username } as ProfileFields, 'username');
    return { username: profile.username };
  });

  // "Works with a user token or app credentials" (reference): a sign-up form asks before any user exists.
  app.post('/account/check_username', {
    schema: { tags, body: Type.Object({ ...TokenFields, desired_username: Type.String({ minLength: 1, maxLength: 64 }) }) },
    config: openApi({ ok: UsernameCheck }),
    preValidation: app.guard('userToken', 'appToken', 'clientKey'),
  }, async (request) =>
    usernameAvailable(ctx, request.auth.app._id, request.body.desired_username, request.auth.user?._id));

  const setToken = (path: string, field: string, kind: (body: Record<string, unknown>) => DeviceKind) =>
    app.post(path, {
      schema: {
        tags,
        body: Type.Object({
          ...TokenFields, [field]: PushToken, device_id: Type.Optional(Type.String({ maxLength: 200 })),
          mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('dev')])),
        }),
      },
      config: openApi({ ok: ResponseOk }),
      preValidation: user,
    }, async (request) => {
      // The token's field is named by the caller of setToken, which the schema's type cannot name.
      const body: Record<string, unknown> = request.body;
      return addDeviceToken(ctx, request.auth.user!, kind(body), body[field] as string);
    });
  // APNs tokens go to apns_live unless the app says it runs against the sandbox (`mode=dev`).
  setToken('/account/set_apn_token', 'token', (b) => (b.mode === 'dev' ? 'apns_dev' : 'apns_live'));
  setToken('/account/set_gcm_token', 'gcm_token', () => 'gcm');
  setToken('/account/set_c2dm_token', 'c2dm_token', () => 'c2dm');

  app.get('/account/privacy', { schema: { tags }, config: openApi({ ok: Privacy }), preValidation: user }, async (request) => privacyOf(request.auth.user!));

  // The reference limits the POST to pre-approved clients; here a user sets their own.
  app.post('/account/privacy', {
    schema: {
      tags,
      body: Type.Object({
        ...TokenFields, public_location: Type.Optional(Flag), public_geonotes: Type.Optional(Flag), public_geonote_email: Type.Optional(Flag),
        default_share_expiration: Type.Optional(Type.Integer({ minimum: 0, maximum: 36_500 })),
      }),
    },
    config: openApi({ ok: ResultOk }),
    preValidation: user,
  }, async (request) => setPrivacy(ctx, request.auth.user!, request.body ?? {}));

  // For pre-approved applications only (services/permanent-token.ts). GET too: geoloqi-python sends
  // its post('account/permanent_token'), which has no data, as a GET.
  getOrPost(app, '/account/permanent_token', { schema: { tags, body: Type.Object(TokenFields) }, config: openApi({ ok: PermanentToken }), preValidation: user }, async (request) =>
    permanentToken(ctx, request.auth.app, request.auth.user!));

  app.get('/account/connections', { schema: { tags }, config: openApi({ ok: Connections }), preValidation: user }, async (request) =>
    connectionsOf(request.auth.app, request.auth.user!, requestZone(request, request.auth.user)));
}
