// Who is asking, reduced to what the layer/place/trigger services need: the application, its
// default layer, and for a user token the user (whose view is limited to the layers they can see).
import type { AuthContext } from '../auth/authenticate.js';
import { requestTimeZone } from './request-zone.js';

export interface Viewer {
  appId: string;
  defaultLayerId: string;
  /** Set for user tokens. */
  userId?: string;
  /** The request's zone (services/request-zone.ts): the header's, the user's, or UTC for the application. */
  timeZone: string;
}

/** `headerZone`: the zone of the request's `Timezone` header, if it names one (headerTimeZone). */
export function viewerOf(auth: AuthContext, headerZone?: string): Viewer {
  return {
    appId: auth.app._id,
    defaultLayerId: auth.app.default_layer_id,
    userId: auth.kind === 'user' ? auth.user?._id : undefined,
    timeZone: requestTimeZone(headerZone, auth.kind === 'user' ? auth.user : undefined),
  };
}
