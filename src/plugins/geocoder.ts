// The geocoder plugin: gives the service context its offline geocoder (services/geocoder.ts),
// which reads its data on the first lookup, so an app that never geocodes never pays for it.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Geocoder } from '../services/geocoder.js';

export default fp(
  async (app: FastifyInstance) => {
    app.ctx.geocoder = new Geocoder();
  },
  { name: 'geocoder', dependencies: ['store'] },
);
