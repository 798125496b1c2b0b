// A phone's live message stream (GET /1/stream): the route hands its socket over here, and the
// delivery runtime's hub sends the user's messages to it until it is detached.
import type { LiveSocket } from '../delivery/live-stream.js';
import type { ServiceContext } from './context.js';

export type { LiveSocket };

/** Attaches `socket` to the user's stream; resolves to the function that detaches it. */
export function attachLiveStream(ctx: ServiceContext, appId: string, userId: string, timeZone: string, socket: LiveSocket): Promise<() => void> {
  return ctx.delivery.live.attach(ctx.delivery, appId, userId, timeZone, socket);
}
