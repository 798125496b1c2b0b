// Firings in the store as delivery tests read and write them, through the firings repository.
import type { ServiceContext } from '../../src/services/context.js';
import type { DeliveryStatus, FiringRecord, NewFiring } from '../../src/store/firings.js';

export interface CallbackFields {
  event_id: string;
  app_id: string;
  trigger_id: string;
  user_id: string;
  place_id: string;
  layer_id: string;
  url: string;
  payload?: string;
}

/** A callback as recordFirings stores it: pending, due at `dueAt`. */
export function callbackFiring(c: CallbackFields, dueAt: number, over: Partial<NewFiring> = {}): NewFiring {
  return {
    event_id: c.event_id, app_id: c.app_id, user_id: c.user_id, trigger_id: c.trigger_id, place_id: c.place_id, layer_id: c.layer_id,
    type: 'callback', triggered_on: 'enter', delay_s: 0, date: dueAt, url: c.url, ...(c.payload !== undefined ? { payload: c.payload } : {}),
    status: 'pending', next_attempt_at: dueAt, created_at: dueAt, ...over,
  };
}

export const getFiring = (ctx: Pick<ServiceContext, 'store'>, eventId: string): Promise<FiringRecord | null> => ctx.store.firings.get(eventId);

/** Every firing of the application, trigger/history's and unlisted ones alike. */
export async function firingsOf(ctx: Pick<ServiceContext, 'store'>, appId: string): Promise<FiringRecord[]> {
  return ctx.store.firings.history({ app_id: appId, gated: true }, 0, 100_000);
}

/** How many of the application's callbacks are in `status`. */
export async function countStatus(ctx: Pick<ServiceContext, 'store'>, appId: string, status: DeliveryStatus): Promise<number> {
  return (await firingsOf(ctx, appId)).filter((f) => f.status === status).length;
}

/** The status of each of these callbacks. */
export async function statusesOf(ctx: Pick<ServiceContext, 'store'>, ids: readonly string[]): Promise<Array<DeliveryStatus | undefined>> {
  return Promise.all(ids.map(async (id) => (await ctx.store.firings.get(id))?.status));
}
