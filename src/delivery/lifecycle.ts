// Starting and stopping delivery with the application: the dispatcher runs from onReady to
// preClose (before the store closes), open live streams are dropped, pushes in flight finish.
// Fastify-free so a worker process or a CLI could run a dispatcher the same way.
import type { ServiceContext } from '../services/context.js';
import { startDispatcher, type Dispatcher, type DispatcherOptions } from './dispatcher.js';
import { closeProviders } from './push/index.js';
import { flushPushes, runtimeOf, setDeliveryLog, type DeliveryLog } from './runtime.js';

export interface DeliveryOptions extends DispatcherOptions {
  /** false: no dispatcher in this process (the outbox is still written; another node drains it). */
  dispatcher?: boolean;
  /** How often live streams poll the store for messages other nodes stored (ms; default 2000 on MongoDB, 0 = off on the embedded store, which only this process writes). */
  livePollMs?: number;
}

export function deliveryLifecycle(ctx: ServiceContext, opts: DeliveryOptions & { log?: DeliveryLog } = {}) {
  let dispatcher: Dispatcher | undefined;
  if (opts.log) setDeliveryLog(ctx, opts.log);
  if (opts.livePollMs !== undefined) runtimeOf(ctx).live.setPollInterval(opts.livePollMs);
  return {
    start() {
      if (opts.dispatcher !== false && !dispatcher) dispatcher = startDispatcher(ctx, opts);
    },
    async stop() {
      await dispatcher?.stop();
      dispatcher = undefined;
      const rt = runtimeOf(ctx);
      rt.live.stop();
      await flushPushes(ctx);
      if (rt.push) await closeProviders(rt.push);
    },
  };
}
