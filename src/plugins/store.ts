// The store plugin: opens the store the configuration names (MongoDB through @fastify/mongodb when
// MONGODB_URL is set, else the embedded store under DATA_DIR) and decorates the app with the
// service context over it, made whole (`app.ctx`: store, config, clock, change feed, locks, the
// delivery runtime, the engine host, auth limits, API hit counter, geocoder; service-context.ts),
// and with the engine host (`app.engine`). The delivery, engine, auth, api-hits and geocoder
// plugins run those parts. The store closes in onClose, after the preClose hooks that stop the
// engine and delivery. Each durable write is timed into the service's metrics (plugins/metrics.ts):
// the embedded engine's commits, MongoDB's write commands.
import fastifyMongo from '@fastify/mongodb';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import type { DeliveryOptions } from '../delivery/runtime.js';
import type { EngineHost, EngineHostOptions } from '../engine/host.js';
import type { ServiceContext } from '../services/context.js';
import { openStore, type Store } from '../store/store.js';
import { buildServiceContext } from './service-context.js';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: ServiceContext;
    engine: EngineHost;
  }
}

export interface StorePluginOptions {
  config: Config;
  /** Clock override for tests. */
  now?: () => number;
  /** The delivery runtime's settings; the delivery plugin runs its loop. */
  delivery?: DeliveryOptions;
  /** The engine host's settings; the engine plugin starts it. */
  engine?: EngineHostOptions;
}

export default fp(
  async (app: FastifyInstance, opts: StorePluginOptions) => {
    const store = await openConfiguredStore(app, opts.config, app.metrics);
    const { ctx, engine } = buildServiceContext({
      store, config: opts.config, now: opts.now, metrics: app.metrics, delivery: { ...opts.delivery, log: app.log }, engine: opts.engine,
    });
    app.decorate('ctx', ctx);
    app.decorate('engine', engine);
    app.addHook('onClose', async () => store.close());
  },
  { name: 'store', dependencies: ['metrics'] },
);

/** MongoDB's commands that write (what the store's repositories send). */
const MONGO_WRITES = new Set(['insert', 'update', 'delete', 'findAndModify', 'bulkWrite']);

async function openConfiguredStore(app: FastifyInstance, config: Config, metrics: Metrics): Promise<Store> {
  if (!config.mongodbUrl) {
    return openStore({
      kind: 'embedded',
      dataDir: config.dataDir,
      sync: config.storeSync,
      onCommit: (ms) => metrics.stored(ms),
    });
  }
  // @fastify/mongodb closes the client itself on app close. Command monitoring tells each
  // command's duration: the write commands are the store's write latency.
  await app.register(fastifyMongo, { url: config.mongodbUrl, forceClose: true, monitorCommands: true });
  app.mongo.client.on('commandSucceeded', (e) => {
    if (MONGO_WRITES.has(e.commandName)) metrics.stored(e.duration);
  });
  const db = app.mongo.db;
  if (!db) throw new Error('MONGODB_URL must name a database, e.g. mongodb://host:27017/geotrigger');
  return openStore({ kind: 'mongodb', db });
}
