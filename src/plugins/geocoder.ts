// The geocoder plugin: gives the service context its offline geocoder (services/geocoder.ts),
// which reads its data on the first lookup (in a thread of its own), so an app that never geocodes
// never pays for it. Closing the app stops a load under way.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Geocoder } from '../services/geocoder.js';

export default fp(
  async (app: FastifyInstance) => {
    const geocoder = new Geocoder();
    app.ctx.geocoder = geocoder;
    app.addHook('onClose', async () => geocoder.close());
  },
  { name: 'geocoder', dependencies: ['store'] },
);
