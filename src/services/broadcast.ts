// message/broadcast and message/count_broadcast (reference §4.10): a message to every user who
// belongs to one of the application's layers (subscribed, or every user for the default layer)
// and whose last location lies within a circle. Each recipient gets it as message/send delivers
// one: stored (message/list), written to open live streams (/1/stream), pushed to their devices.
import { deliverMessage } from '../delivery/inbox.js';
import { apiError } from '../errors.js';
import { haversineM } from '../geo/distance.js';
import type { LayerDoc, UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { hasPushToken } from './profile.js';

export interface BroadcastInput {
  layer_id: string;
  latitude: number;
  longitude: number;
  radius: number;
  text: string;
  url?: string;
}

/** Who a broadcast reaches: count_broadcast needs no message. */
type RecipientsInput = Omit<BroadcastInput, 'text' | 'url'>;

/** Ids read per store query. */
const CHUNK = 500;

/**
 * The reference's 403 for a layer the caller may not use. A missing layer and another
 * application's answer the same, so it says nothing of what exists elsewhere.
 */
const denied = () => apiError('access_denied', 'Access denied to this layer');

async function layerMembers(ctx: ServiceContext, appId: string, layer: LayerDoc): Promise<string[]> {
  if (layer.type === 'default') {
    return ctx.store.users.ids(appId);
  }
  return (await ctx.store.subscriptions.forLayer(appId, layer._id)).map((s) => s.user_id);
}

/** The members whose last location is within the circle (distance on the sphere, as place/nearby). */
async function recipients(ctx: ServiceContext, appId: string, input: RecipientsInput): Promise<UserDoc[]> {
  const layer = await ctx.store.layers.get(appId, input.layer_id);
  if (!layer) throw denied();
  const members = await layerMembers(ctx, appId, layer);
  const out: UserDoc[] = [];
  for (let i = 0; i < members.length; i += CHUNK) {
    const ids = members.slice(i, i + CHUNK);
    const lasts = await ctx.store.lastLocations.ofUsers(appId, ids);
    const near = lasts
      .filter((l) => haversineM(input.latitude, input.longitude, l.latitude, l.longitude) <= input.radius)
      .map((l) => l.user_id);
    if (near.length > 0) out.push(...(await ctx.store.users.many(appId, near)));
  }
  return out;
}

function counts(users: UserDoc[]) {
  const push = users.filter((u) => hasPushToken(u) === 1).length;
  // No SMS gateway: a recipient without a push token gets the message in message/list and /1/stream.
  return { result: 'ok' as const, total: users.length, push, sms: 0 };
}

/** message/count_broadcast: who message/broadcast would reach, sending nothing. */
export async function countBroadcast(ctx: ServiceContext, appId: string, input: RecipientsInput) {
  return counts(await recipients(ctx, appId, input));
}

/** message/broadcast: the message to each recipient, from the layer. */
export async function broadcast(ctx: ServiceContext, appId: string, input: BroadcastInput) {
  const text = input.text.trim();
  if (text === '') throw apiError('missing_input', 'text is required');
  const users = await recipients(ctx, appId, input);
  for (const user of users) {
    await deliverMessage(ctx.delivery, { app_id: appId, user_id: user._id, text, url: input.url, layer_id: input.layer_id });
  }
  return counts(users);
}
