// The /1/ route groups, one module per API group (reference §4).
import type { FastifyInstance } from 'fastify';
import { accountRoutes } from './account.js';
import { locationRoutes } from './location.js';
import { oauthRoutes } from './oauth.js';
import { userRoutes } from './user.js';

export const apiV1Groups: Array<(app: FastifyInstance) => Promise<void>> = [oauthRoutes, userRoutes, accountRoutes, locationRoutes];
