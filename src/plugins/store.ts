// The store plugin: opens the store the configuration names (MongoDB through @fastify/mongodb when
// MONGODB_URL is set, else the embedded store under DATA_DIR) and decorates the app with the
// service context over it (`app.ctx`: store, config, clock, change feed, locks, and the delivery
// runtime, whose loop the delivery plugin runs). The store closes
// in onClose, after the preClose hooks that stop the engine and delivery.
import fastifyMongo from '@fastify/mongodb';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { createDelivery, type DeliveryOptions } from '../delivery/runtime.js';
import { createServiceContext, type ServiceContext } from '../services/context.js';
import { openStore, type Store } from '../store/store.js';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: ServiceContext;
  }
}

export interface StorePluginOptions {
  config: Config;
  /** Clock override for tests. */
  now?: () => number;
  /** The delivery runtime's settings; the delivery plugin runs its loop. */
  delivery?: DeliveryOptions;
}

export default fp(
  async (app: FastifyInstance, opts: StorePluginOptions) => {
    const store = await openConfiguredStore(app, opts.config);
    const { config } = opts;
    const ctx = createServiceContext({ store, config, now: opts.now }, (base) =>
      createDelivery(base, {
        concurrency: config.callbackConcurrency,
        endpointConcurrency: config.callbackEndpointConcurrency,
        ...opts.delivery,
        log: app.log,
      }));
    app.decorate('ctx', ctx);
    app.addHook('onClose', async () => store.close());
  },
  { name: 'store' },
);

async function openConfiguredStore(app: FastifyInstance, config: Config): Promise<Store> {
  if (!config.mongodbUrl) {
    return openStore({
      kind: 'embedded',
      dataDir: config.dataDir,
      sync: config.storeSync,
    });
  }
  // @fastify/mongodb closes the client itself on app close.
  await app.register(fastifyMongo, { url: config.mongodbUrl, forceClose: true });
  const db = app.mongo.db;
  if (!db) throw new Error('MONGODB_URL must name a database, e.g. mongodb://host:27017/geotrigger');
  return openStore({ kind: 'mongodb', db });
}
