// Who is asking, reduced to what the layer/place/trigger services need: the application, its
// default layer, and for a user token the user (whose view is limited to the layers they can see).
import type { AuthContext } from '../auth/authenticate.js';

export interface Viewer {
  appId: string;
  defaultLayerId: string;
  /** Set for user tokens. */
  userId?: string;
  /** Dates are rendered in the user's timezone, UTC for the application (reference §1). */
  timeZone: string;
}

export function viewerOf(auth: AuthContext): Viewer {
  return {
    appId: auth.app._id,
    defaultLayerId: auth.app.default_layer_id,
    userId: auth.kind === 'user' ? auth.user?._id : undefined,
    timeZone: auth.kind === 'user' ? (auth.user?.timezone ?? 'UTC') : 'UTC',
  };
}
