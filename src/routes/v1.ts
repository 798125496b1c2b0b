// The /1/ route groups, one module per API group (reference §4).
import type { RouteApp } from './route-app.js';
import { accountRoutes } from './account.js';
import { applicationRoutes } from './application.js';
import { batchRoutes } from './batch.js';
import { engineStateRoutes } from './engine-state.js';
import { geonoteRoutes } from './geonote.js';
import { inspectorRoutes } from './inspector.js';
import { groupRoutes } from './group.js';
import { layerRoutes } from './layer.js';
import { locationRoutes } from './location.js';
import { locationSettingsRoutes } from './location-settings.js';
import { messageRoutes } from './message.js';
import { oauthRoutes } from './oauth.js';
import { placeRoutes } from './place.js';
import { shareRoutes } from './share.js';
import { streamRoutes } from './stream.js';
import { triggerRoutes } from './trigger.js';
import { triggerRunRoutes } from './trigger-run.js';
import { triggerAttemptRoutes } from './trigger-attempts.js';
import { triggerTimelineRoutes } from './trigger-timeline.js';
import { userRoutes } from './user.js';

export const apiV1Groups: Array<(app: RouteApp) => Promise<void>> = [oauthRoutes, userRoutes, accountRoutes, locationRoutes, layerRoutes, placeRoutes, triggerRoutes, messageRoutes, streamRoutes, triggerRunRoutes, engineStateRoutes, batchRoutes,
  // Issue 32: the rest of the reference's methods.
  geonoteRoutes, shareRoutes, applicationRoutes, locationSettingsRoutes,
  // Issue 31: the inspector's live events.
  inspectorRoutes,
  groupRoutes,
  triggerTimelineRoutes,
  // Issue 40: delivery forensics.
  triggerAttemptRoutes];
