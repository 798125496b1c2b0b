// Test fixtures for delivery: a real embedded store in a temp DATA_DIR, and an application with a
// user, a place and a trigger written straight to the store (the HTTP tests use the real routes).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import type { Firing } from '../../src/delivery/firings.js';
import { createDelivery, type DeliveryOptions, type DeliveryRuntime } from '../../src/delivery/runtime.js';
import { createApplication } from '../../src/services/applications.js';
import type { ServiceContext } from '../../src/services/context.js';
import { buildServiceContext } from '../../src/plugins/service-context.js';
import type { ApplicationDoc, LayerDoc, PlaceDoc, TriggerDoc, UserDoc } from '../../src/store/documents.js';
import { newId } from '../../src/store/ids.js';
import { openStore } from '../../src/store/store.js';
import { afterEach, beforeEach } from 'vitest';

export async function tempDataDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'delivery-test-'));
}

export function testConfig(dataDir: string, over: Partial<Config> = {}): Config {
  // A short grace before the clock fires a dwell: tests wait for it, not for the default half minute.
  return { ...loadConfig({}), dataDir, logLevel: 'silent', callbackAllowPrivate: true, dwellGraceMs: 200, dwellToleranceMs: 200, ...over };
}

/** A context over a real embedded store, with a delivery runtime whose loop is not started. */
export async function openCtx(dataDir: string, over: Partial<Config> = {}): Promise<ServiceContext> {
  const store = await openStore({ kind: 'embedded', dataDir });
  return buildServiceContext({ store, config: testConfig(dataDir, over) }).ctx;
}

/**
 * A delivery runtime for `ctx` with its loop started; it becomes `ctx.delivery`, so firings
 * recorded through the context from now on are handed to this loop (as in the app, which has one).
 */
export function startDelivery(ctx: ServiceContext, opts: DeliveryOptions = {}): DeliveryRuntime {
  // Callbacks are sent from this thread unless a test asks for the sender's own thread
  // (sender-thread.e2e.test.ts covers that one).
  const rt = createDelivery({ store: ctx.store, config: ctx.config, changes: ctx.changes, now: () => ctx.now(), metrics: ctx.metrics }, { senderThread: false, ...opts });
  ctx.delivery = rt;
  rt.start();
  return rt;
}

export async function removeDir(dir: string) {
  await rm(dir, { recursive: true, force: true });
}

export interface Fixture {
  app: ApplicationDoc;
  appToken: string;
  user: UserDoc;
  layer: LayerDoc;
  place: PlaceDoc;
  trigger: TriggerDoc;
}

export function userDoc(appId: string, over: Partial<UserDoc> = {}): UserDoc {
  const id = newId();
  return {
    _id: id, app_id: appId, username: `u_${id}`, uniq_username: `${appId}:u_${id}`, name: 'Ada', display_name: 'Ada L',
    bio: 'bio', website: 'https://ada.example', timezone: 'America/Los_Angeles', profile_image: '', phone: '', twitter: 'ada', facebook: '',
    is_anonymous: 0, has_custom_username: 1, public_location: 0, public_geonotes: 1, public_geonote_email: 0,
    extra: { plan: 'gold' }, devices: { apns_dev: [], apns_live: [], c2dm: [], gcm: [] }, created_at: Date.now(), ...over,
  };
}

export async function seed(
  ctx: ServiceContext,
  trigger: Partial<TriggerDoc> & Pick<TriggerDoc, 'type'>,
  opts: { user?: Partial<UserDoc> } = {},
): Promise<Fixture> {
  const created = await createApplication(ctx, 'delivery test');
  const app = (await ctx.store.applications.get(created.application_id))!;
  const layer = (await ctx.store.layers.get(app._id, app.default_layer_id))!;
  const user = userDoc(app._id, opts.user);
  await ctx.store.users.insert(user);
  const place: PlaceDoc = {
    _id: newId(), app_id: app._id, layer_id: layer._id, name: 'Powells', description: 'Books', latitude: 45.5165, longitude: -122.6764,
    radius: 200, extra: { shelf: 3 }, created_at: Date.now(),
  };
  await ctx.store.places.insert(place);
  const t: TriggerDoc = {
    _id: newId(), app_id: app._id, place_id: place._id, layer_id: layer._id, on_layer: false, trigger_on: 'enter', trigger_after: 0,
    one_time: 0, text: '', url: '', extra: {}, created_at: Date.now(), ...trigger,
  };
  await ctx.store.triggers.insert(t);
  return { app, appToken: created.access_token, user, layer, place, trigger: t };
}

let seq = 0;
export function firingOf(f: Fixture, over: Partial<Firing> = {}): Firing {
  const at = Date.now();
  return {
    event_id: `evt_${Date.now().toString(36)}_${++seq}`,
    app_id: f.app._id, user_id: f.user._id, trigger_id: f.trigger._id, place_id: f.place._id, layer_id: f.layer._id,
    triggered_on: 'enter', delay_s: 0, at, received_at: at,
    location: { date: at - 1000, latitude: 45.5166, longitude: -122.6765, horizontal_accuracy: 12, speed: 1.5, raw: { battery: 80 } },
    ...over,
  };
}

/** Polls until `check` returns a truthy value (or fails after `timeoutMs`). */
export async function until<T>(check: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 10_000, stepMs = 20): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as T;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/**
 * A fresh embedded store in its own DATA_DIR for every test of the file (or describe block) that
 * calls this; `use` receives each test's context, and the store is closed and removed after it.
 */
export function storePerTest(use: (ctx: ServiceContext) => void): void {
  let dir = '';
  let ctx: ServiceContext | undefined;
  beforeEach(async () => {
    dir = await tempDataDir();
    ctx = await openCtx(dir);
    use(ctx);
  });
  afterEach(async () => {
    await ctx?.store.close();
    await removeDir(dir);
  });
}
