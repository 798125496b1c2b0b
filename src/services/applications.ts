// Applications (tenants): created, listed, rotated and deleted by the operator through the admin API.
import { newWebhookSecret, sha256Hex } from '../auth/secrets.js';
import { apiError, notFound } from '../errors.js';
import type { ApplicationDoc, LayerDoc } from '../store/documents.js';
import { newId, newRandomString } from '../store/ids.js';
import type { ServiceContext } from './context.js';
import { removePlaces, removeTriggers } from './removal.js';
import { issuePermanentAppToken, revokeAppTokens } from './tokens.js';

export interface CreatedApplication {
  application_id: string;
  name: string;
  client_id: string;
  client_secret: string;
  access_token: string;
  webhook_secret: string;
  default_layer_id: string;
  redirect_uris: string[];
}

/** What the operator may set on an application at creation and later. */
export interface ApplicationSettings {
  name?: string;
  store_history?: boolean;
  redirect_uris?: string[];
  permanent_tokens?: boolean;
  /** Callbacks to one URL that may share a POST (1..100; 1, the default: one event per POST). */
  callback_batch_max?: number;
}

const MAX_REDIRECT_URIS = 20;
/** Schemes a browser runs or reads locally instead of navigating to an application. */
const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

/**
 * Redirect URIs are compared exactly at /oauth/authorize, so each must be a complete absolute URI
 * with no fragment (RFC 6749 §3.1.2). Custom schemes (`myapp://callback`) are allowed for mobile apps.
 */
export function checkRedirectUris(uris: string[]): string[] {
  if (uris.length > MAX_REDIRECT_URIS) throw apiError('invalid_input', `redirect_uris takes at most ${MAX_REDIRECT_URIS} URIs`);
  for (const uri of uris) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw apiError('invalid_input', `redirect_uris: "${uri}" is not an absolute URI`);
    }
    if (uri.includes('#')) throw apiError('invalid_input', `redirect_uris: "${uri}" has a fragment, which a redirect URI may not have`);
    if (UNSAFE_SCHEMES.has(url.protocol)) throw apiError('invalid_input', `redirect_uris: the ${url.protocol} scheme is not allowed`);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.hostname) throw apiError('invalid_input', `redirect_uris: "${uri}" has no host`);
  }
  return [...new Set(uris)];
}

export function defaultLayerDoc(appId: string, layerId: string, now: number): LayerDoc {
  return {
    _id: layerId, app_id: appId, type: 'default', name: 'Default', description: 'Every user of the application',
    icon: '', url: '', public: 0, public_userlist: 0, trigger_rate_limit: 0, extra: {}, created_at: now,
  };
}

export async function createApplication(ctx: ServiceContext, name: string, settings: ApplicationSettings = {}): Promise<CreatedApplication> {
  const now = ctx.now();
  const redirectUris = checkRedirectUris(settings.redirect_uris ?? []);
  const clientSecret = newRandomString(40);
  const app: ApplicationDoc = {
    _id: newId(),
    name,
    client_id: newRandomString(24),
    client_secret_hash: sha256Hex(clientSecret),
    webhook_secret: newWebhookSecret(),
    default_layer_id: newId(),
    store_history: settings.store_history ?? false,
    redirect_uris: redirectUris,
    ...(settings.callback_batch_max !== undefined ? { callback_batch_max: settings.callback_batch_max } : {}),
    created_at: now,
  };
  await ctx.store.applications.insert(app);
  await ctx.store.layers.insert(defaultLayerDoc(app._id, app.default_layer_id, now));
  // The operator's application token never expires, like the historical developer-site token.
  const accessToken = await issuePermanentAppToken(ctx, app._id);
  return {
    application_id: app._id, name, client_id: app.client_id, client_secret: clientSecret,
    access_token: accessToken, webhook_secret: app.webhook_secret, default_layer_id: app.default_layer_id, redirect_uris: redirectUris,
  };
}

export function publicApplication(app: ApplicationDoc) {
  return {
    application_id: app._id,
    name: app.name,
    client_id: app.client_id,
    default_layer_id: app.default_layer_id,
    store_history: app.store_history ? 1 : 0,
    redirect_uris: app.redirect_uris ?? [],
    permanent_tokens: app.permanent_tokens ? 1 : 0,
    callback_batch_max: app.callback_batch_max ?? 1,
    date_created: new Date(app.created_at).toISOString(),
  };
}

export async function listApplications(ctx: ServiceContext) {
  const apps = await ctx.store.applications.all();
  return apps.map(publicApplication);
}

async function requireApp(ctx: ServiceContext, id: string): Promise<ApplicationDoc> {
  const app = await ctx.store.applications.get(id);
  if (!app) throw notFound('Application');
  return app;
}

/**
 * New API secret (the old one stops working at once) and a new application token: every earlier
 * one is revoked, since a leaked secret mints them (services/tokens.ts revokeAppTokens). With
 * `webhook`, a new signing secret too.
 * The replaced signing secret keeps signing beside the new one for WEBHOOK_SECRET_OVERLAP_S, so a
 * receiver can switch to the new secret without rejecting callbacks meanwhile (Standard Webhooks
 * sends one `v1,` signature per secret; the receiver accepts any match).
 */
export async function rotateSecret(ctx: ServiceContext, id: string, webhook: boolean) {
  const app = await requireApp(ctx, id);
  const clientSecret = newRandomString(40);
  const set: Partial<ApplicationDoc> = { client_secret_hash: sha256Hex(clientSecret) };
  const overlapMs = ctx.config.webhookSecretOverlapS * 1000;
  const unset: Array<keyof ApplicationDoc> = [];
  if (webhook) {
    set.webhook_secret = newWebhookSecret();
    if (overlapMs > 0) {
      set.previous_webhook_secret = app.webhook_secret;
      set.previous_webhook_secret_until = ctx.now() + overlapMs;
    } else {
      unset.push('previous_webhook_secret', 'previous_webhook_secret_until');
    }
  }
  await ctx.store.applications.update(app._id, { set, unset });
  // After the secret changed, so no token minted with the old one is left (see grantAppToken).
  await revokeAppTokens(ctx, app._id);
  const accessToken = await issuePermanentAppToken(ctx, app._id);
  const until = set.previous_webhook_secret_until ?? (webhook ? undefined : app.previous_webhook_secret_until);
  return {
    application_id: app._id, client_id: app.client_id, client_secret: clientSecret, access_token: accessToken,
    webhook_secret: set.webhook_secret ?? app.webhook_secret,
    // Until when callbacks still carry a signature with the replaced secret (null: they do not).
    previous_webhook_secret_expires_at: until !== undefined && until > ctx.now() ? new Date(until).toISOString() : null,
  };
}

/** `redirect_uris`, when given, replaces the list (an empty list removes them all). */
export async function updateApplication(ctx: ServiceContext, id: string, settings: ApplicationSettings) {
  const set = { ...settings };
  if (set.redirect_uris) set.redirect_uris = checkRedirectUris(set.redirect_uris);
  await requireApp(ctx, id);
  await ctx.store.applications.update(id, { set });
  return publicApplication(await requireApp(ctx, id));
}

/**
 * Deletes the application and everything it owns. Its removals are announced as the single
 * deletes announce theirs: the engine drops its geofences first (no more firings), and once its
 * tokens are gone its users' machines and dwell deadlines (which otherwise went on firing and
 * writing machine states for a deleted application) and their open streams (closed with 4401).
 */
export async function deleteApplication(ctx: ServiceContext, id: string) {
  const app = await requireApp(ctx, id);
  // Their queued callbacks go with the whole outbox below, not trigger by trigger.
  await removeTriggers(ctx, app._id, await ctx.store.triggers.forApp(app._id), { cancel: false });
  await removePlaces(ctx, app._id, await ctx.store.places.forApp(app._id), { cancel: false });
  const [layers, users] = await Promise.all([ctx.store.layers.forApp(app._id), ctx.store.users.forApp(app._id)]);
  await ctx.store.removeApplicationData(app._id);
  for (const doc of layers) await ctx.changes.publish({ kind: 'layer', op: 'removed', doc });
  for (const doc of users) await ctx.changes.publish({ kind: 'user', op: 'removed', doc });
  await ctx.store.applications.remove(app._id);
  return { deleted: app._id };
}
