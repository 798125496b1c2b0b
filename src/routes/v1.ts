// The /1/ route groups, one module per API group (reference §4).
import type { FastifyInstance } from 'fastify';
import { accountRoutes } from './account.js';
import { batchRoutes } from './batch.js';
import { engineStateRoutes } from './engine-state.js';
import { layerRoutes } from './layer.js';
import { locationRoutes } from './location.js';
import { messageRoutes } from './message.js';
import { oauthRoutes } from './oauth.js';
import { placeRoutes } from './place.js';
import { streamRoutes } from './stream.js';
import { triggerRoutes } from './trigger.js';
import { triggerRunRoutes } from './trigger-run.js';
import { triggerTimelineRoutes } from './trigger-timeline.js';
import { userRoutes } from './user.js';

export const apiV1Groups: Array<(app: FastifyInstance) => Promise<void>> = [oauthRoutes, userRoutes, accountRoutes, locationRoutes, layerRoutes, placeRoutes, triggerRoutes, messageRoutes, streamRoutes, triggerRunRoutes, engineStateRoutes, triggerTimelineRoutes, batchRoutes];
