// The application methods of the API (reference §4.12), with the application's own token: its
// record, its layers, and its usage counted from the firing history and the messages. Another
// application's id is "not found", as a missing one. The API secret is stored only as a hash, so
// `client_secret` is null; push credentials are not kept here; API hits are services/api-hits.ts's.
import { notFound } from '../errors.js';
import { isoDate } from '../schemas/dates.js';
import type { ApplicationDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { layerInfo } from './layers.js';

export function applicationObject(app: ApplicationDoc) {
  return {
    application_id: app._id,
    name: app.name,
    icon: '',
    description: '',
    date_created: isoDate(app.created_at),
    client_id: app.client_id,
    client_secret: null,
    redirect_uri: (app as { redirect_uri?: string }).redirect_uri ?? '',
    push: { apns_live: null, apns_dev: null, c2dm_live: null },
    apns_mode: null,
    // What this service lets every application do (user/create, user/create_anon, the password grant).
    permissions: { can_create_accounts: 1, can_create_anonymous_accounts: 1, grant_password: 1, permanent_token: app.permanent_tokens ? 1 : 0 },
  };
}

/** The caller's application when `id` names it; anything else reads as missing. */
export function ownApplication(app: ApplicationDoc, id: string): ApplicationDoc {
  if (id !== app._id) throw notFound('Application');
  return app;
}

export async function applicationLayers(ctx: ServiceContext, app: ApplicationDoc) {
  const layers = await ctx.store.layers.forApp(app._id);
  const out = [];
  for (const layer of layers) {
    const { num_places: _n, ...full } = await layerInfo(ctx, layer);
    out.push(full);
  }
  return { layers: out };
}

const DAY_MS = 86_400_000;

/** Counts by month (`YYYY-mm-01`) and, for the last 90 days, by day. */
function series(name: string, dates: number[], now: number) {
  const monthly: Record<string, number> = {};
  const daily: Record<string, number> = {};
  for (const at of dates) {
    const day = new Date(at).toISOString().slice(0, 10);
    const month = `${day.slice(0, 7)}-01`;
    monthly[month] = (monthly[month] ?? 0) + 1;
    if (at > now - 90 * DAY_MS) daily[day] = (daily[day] ?? 0) + 1;
  }
  return { name, total: dates.length, monthly, daily };
}

/** application/usage/:id: firings by type and plain messages; "this period" is the current UTC month. */
export async function applicationUsage(ctx: ServiceContext, app: ApplicationDoc) {
  const now = ctx.now();
  const fired = await ctx.store.firings.usage(app._id);
  const plain = await ctx.store.messages.sentDates(app._id);
  const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
  const callbacks = fired.filter((f) => f.type === 'callback').map((f) => f.date);
  const messages = fired.filter((f) => f.type === 'message').map((f) => f.date);
  const thisPeriod = (dates: number[]) => dates.filter((d) => d >= monthStart).length;
  return {
    usage: {
      trigger_callback: series('URL Callbacks', callbacks, now),
      trigger_message: series('Messages', messages, now),
      message: series('Messages sent', plain, now),
      triggers_total: fired.length,
      messages_total: plain.length,
      triggers_this_period: thisPeriod([...callbacks, ...messages]),
      messages_this_period: thisPeriod(plain),
    },
  };
}
