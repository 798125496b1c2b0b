// Creates the simulated world in the service through its public API: layers, layer triggers (before
// their places, so "places added later" is exercised), places, users with their timezones and
// subscriptions, place and inline triggers, and last the triggers with date/time windows, anchored
// so that the mid-run boundary falls inside the load phase.
import { mapLimit } from './http-client.js';
import type { AppCredentials, ServiceApi } from './api.js';
import { resolveWindow, type LayerRole, type TriggerSpec, type Window, type World } from './world.js';

export interface SetupOptions {
  concurrency: number;
  /** Base URL the service POSTs callbacks to (the receiver). */
  callbackBase: string;
  /** Expected length of the load phase, ms (anchors the window triggers). */
  loadMs: number;
  onProgress?: (done: number, total: number, stage: string) => void;
  /** Epoch ms after which setup gives up (the run's --max-runtime). */
  deadline?: number;
}

export interface SetupResult {
  seconds: number;
  calls: number;
  /** When the window triggers were anchored (resolveWindow's anchor). */
  anchorMs: number;
  layerIds: Partial<Record<LayerRole, string>>;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function windowFields(w: Window | undefined): Record<string, string> {
  if (!w) return {};
  return {
    ...(w.dateFrom !== undefined ? { date_from: iso(w.dateFrom) } : {}),
    ...(w.dateTo !== undefined ? { date_to: iso(w.dateTo) } : {}),
    ...(w.timeFrom !== undefined ? { time_from: w.timeFrom } : {}),
    ...(w.timeTo !== undefined ? { time_to: w.timeTo } : {}),
  };
}

export async function setupWorld(api: ServiceApi, app: AppCredentials, world: World, o: SetupOptions): Promise<SetupResult> {
  const started = Date.now();
  const token = app.access_token;
  let calls = 0;
  const total =
    4 + world.places.length + world.triggers.length + world.users.length +
    world.users.reduce((n, u) => n + (u.timezone !== 'UTC' ? 1 : 0) + u.layers.length - 1, 0);
  const step = (stage: string) => {
    calls++;
    o.onProgress?.(calls, total, stage);
    if (o.deadline !== undefined && Date.now() > o.deadline) throw new Error(`--max-runtime reached while creating the world (${calls} of ${total} API calls made)`);
  };

  world.layers.default.id = app.default_layer_id;
  for (const role of ['bulk', 'rate', 'sub', 'multi'] as LayerRole[]) {
    const l = world.layers[role];
    l.id = await api.createLayer(token, { name: l.name, key: l.key, trigger_rate_limit: l.rateLimitS, description: `load test ${role} layer` });
    step('layers');
  }

  const triggerBody = (t: TriggerSpec): Record<string, unknown> => {
    const body: Record<string, unknown> = {
      key: t.key, type: t.type, trigger_on: t.on, trigger_after: t.afterS, one_time: t.oneTime ? 1 : 0,
      ...(t.type === 'message' ? { text: t.text } : { url: `${o.callbackBase}${t.path}` }),
      ...windowFields(t.resolved),
    };
    if (t.layer !== undefined) body.layer_id = world.layers[t.layer].id;
    else if (t.inline) {
      const p = world.places[t.place!];
      Object.assign(body, { latitude: p.lat, longitude: p.lng, radius: p.radius, place_name: p.name, place_key: p.key });
    } else body.place_id = world.places[t.place!].id;
    return body;
  };
  const createTrigger = async (t: TriggerSpec) => {
    const res = await api.createTrigger(token, triggerBody(t));
    t.id = res.trigger_id;
    if (t.inline) {
      if (!res.place_id) throw new Error(`trigger/create with inline coordinates answered without place_id (trigger ${t.key})`);
      world.places[t.place!].id = res.place_id;
    }
    step('triggers');
  };

  // Layer triggers first: their places are all added after them.
  await mapLimit(world.triggers.filter((t) => t.layer !== undefined), o.concurrency, createTrigger);

  const placeAnchor = Date.now();
  await mapLimit(world.places.filter((p) => p.inlineTrigger === undefined), o.concurrency, async (p) => {
    p.resolved = resolveWindow(p.window, placeAnchor);
    const layerId = world.layers[p.layer].id;
    p.id = await api.createPlace(token, {
      key: p.key, name: p.name,
      ...(p.shape ? { geometry: p.shape.geometry, ...(p.shape.width ? { width: p.shape.width } : {}) } : { latitude: p.lat, longitude: p.lng, radius: p.radius }),
      ...(layerId ? { layer_id: layerId } : {}), ...windowFields(p.resolved),
    });
    step('places');
  });

  await mapLimit(world.users, o.concurrency, async (u) => {
    const created = await api.createAnonUser(app, u.key);
    u.id = created.user_id;
    u.token = created.access_token;
    step('users');
    if (u.timezone !== 'UTC') {
      await api.setTimezone(u.token, u.timezone);
      step('users');
    }
  });

  const subs = world.users.flatMap((u) => u.layers.filter((r) => r !== 'default').map((r) => ({ u, r })));
  await mapLimit(subs, o.concurrency, async ({ u, r }) => {
    await api.subscribe(token, world.layers[r].id!, u.id!);
    step('subscriptions');
  });

  const plain = world.triggers.filter((t) => t.layer === undefined && !t.window);
  await mapLimit(plain, o.concurrency, createTrigger);

  // The window triggers come last, anchored at the expected start of the load phase.
  const windowed = world.triggers.filter((t) => t.layer === undefined && t.window);
  const perCall = (Date.now() - started) / Math.max(1, calls);
  const anchorMs = Date.now() + Math.round((perCall * windowed.length) / Math.max(1, o.concurrency)) + 1000;
  for (const t of windowed) t.resolved = resolveWindow(t.window, anchorMs);
  await mapLimit(windowed, o.concurrency, createTrigger);

  const layerIds: Partial<Record<LayerRole, string>> = {};
  for (const role of Object.keys(world.layers) as LayerRole[]) if (world.layers[role].id) layerIds[role] = world.layers[role].id;
  return { seconds: (Date.now() - started) / 1000, calls, anchorMs, layerIds };
}
