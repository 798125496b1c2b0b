// The geocoder plugin: gives the service context its offline geocoder (services/geocoder.ts),
// which reads its data on the first lookup (in a thread of its own), so an app that never geocodes
// never pays for it. Closing the app stops a load under way.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export default fp(
  async (app: FastifyInstance) => {
    const { geocoder } = app.ctx;
    app.addHook('onClose', async () => geocoder.close());
  },
  { name: 'geocoder', dependencies: ['store'] },
);
