// The delivery runtime: everything delivery keeps in memory for one store, created once with
// createDelivery() and handed to whoever needs it (the app decorates itself with it; services reach
// it through their context). It owns the delivery loop, the callback sender, the live-stream hub,
// the push providers and pushes in flight, and the caches firings and callbacks are built from.
// start() runs the loop; close() stops it (rows in flight are handed back), drops live streams and
// waits for pushes. Nothing here is the source of truth: firings (with their delivery) and messages
// are in the store.
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Store } from '../store/store.js';
import { CallbackSender, type Sender } from './callback-sender.js';
import { DeliveryLoop, type LoopOptions } from './delivery-loop.js';
import { DocCache, LayerBoundsCache, type DocChange } from './doc-cache.js';
import { LiveHub } from './live-stream.js';
import { PayloadTexts } from './payload-text.js';
import { closeProviders, providersFromConfig, type PushProviders } from './push/index.js';
import { ThreadedSender } from './sender-thread.js';
import type { Resolver } from './ssrf-guard.js';
import { silentLog, type DeliveryLog, type DispatcherHandle } from './types.js';

/** What a runtime is built on (a service context has all of it). */
export interface DeliveryDeps {
  store: Store;
  config: Pick<Config, 'callbackAllowPrivate' | 'push'>;
  /** Epoch ms; read at every use, so a test may move it. */
  now: () => number;
  /** Changes to triggers, places, layers and users, published after the store has them. */
  changes?: { on(listener: (change: DocChange) => void): void };
  /** The service's instruments (attempts, latency; the outbox and failing receivers when scraped). */
  metrics: Metrics;
}

export interface DeliveryOptions extends LoopOptions {
  /** false: no loop in this process (the outbox is still written; another node drains it). */
  dispatcher?: boolean;
  /** How often live streams poll the store for messages other nodes stored (ms; default 2000 on MongoDB, 0 = off on the embedded store, which only this process writes). */
  livePollMs?: number;
  log?: DeliveryLog;
  /** Push providers to use instead of those config.push names (tests, a custom provider). */
  push?: PushProviders;
  /** Deadline of one HTTP attempt (ms). */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Resolver behind the connect-time SSRF guard (tests); a sender with one runs in this thread. */
  resolve?: Resolver;
  /** Send in a worker thread (default true): signing and HTTP off the thread that serves the API. */
  senderThread?: boolean;
}

export function createDelivery(deps: DeliveryDeps, opts: DeliveryOptions = {}): DeliveryRuntime {
  return new DeliveryRuntime(deps, opts);
}

export class DeliveryRuntime {
  readonly store: Store;
  readonly log: DeliveryLog;
  readonly live: LiveHub;
  /** Settable so tests can give it their own clock. */
  docs: DocCache;
  readonly bounds: LayerBoundsCache;
  readonly texts = new PayloadTexts();
  /**
   * The loop rows are handed to, while one runs here. Settable so tests can stand in for it.
   */
  dispatcher?: DispatcherHandle;
  /** Pushes handed to providers and not finished; flushPushes() awaits them. */
  readonly pushesInFlight = new Set<Promise<void>>();
  private push?: PushProviders;
  private pushLoading?: Promise<PushProviders>;
  private loop?: DeliveryLoop;
  private sender?: Sender;

  constructor(private readonly deps: DeliveryDeps, private readonly opts: DeliveryOptions = {}) {
    this.store = deps.store;
    this.log = opts.log ?? silentLog;
    // Only on MongoDB can another process store a message behind this one's back: the embedded
    // store has one writer, which pushes every message it stores, so its streams do not poll.
    this.live = new LiveHub(opts.livePollMs ?? (deps.store.engine.kind === 'mongodb' ? 2_000 : 0));
    this.docs = new DocCache(deps.store);
    this.bounds = new LayerBoundsCache(deps.store);
    this.push = opts.push;
    const metrics = deps.metrics;
    metrics.read({
      outbox: async () => {
        const o = await this.store.firings.outbox(metrics.outboxCap);
        return { depth: o.waiting, oldestAt: o.oldestAt };
      },
      failingReceivers: () => this.loop?.failingReceivers() ?? 0,
    });
    // A deleted user's live streams close; cached documents and bounds follow every change.
    deps.changes?.on((change) => {
      this.bounds.changed(change);
      if (change.kind === 'user' && change.op === 'removed') this.live.userRemoved(change.doc.app_id, change.doc._id);
      this.docs.changed(change);
    });
  }

  get config(): DeliveryDeps['config'] {
    return this.deps.config;
  }

  now(): number {
    return this.deps.now();
  }

  /** Starts the delivery loop (unless the options say there is none in this process). */
  start(): void {
    if (this.opts.dispatcher === false || this.loop) return;
    const o = this.opts;
    const senderOpts = { allowPrivate: this.deps.config.callbackAllowPrivate, timeoutMs: o.timeoutMs, maxResponseBytes: o.maxResponseBytes, now: () => this.now() };
    this.sender = o.senderThread === false || o.resolve ? new CallbackSender({ ...senderOpts, resolve: o.resolve }) : new ThreadedSender(senderOpts);
    this.loop = new DeliveryLoop(
      {
        firings: this.store.firings, docs: this.docs, sender: this.sender, now: () => this.now(), log: this.log,
        ownsStore: this.store.engine.kind === 'embedded', metrics: this.deps.metrics,
      },
      o,
    );
    this.dispatcher = this.loop;
    this.loop.start();
  }

  /** Stops the loop (rows in flight are handed back), closes live streams, finishes pushes. */
  async close(): Promise<void> {
    const loop = this.loop;
    this.loop = undefined;
    if (loop) {
      if (this.dispatcher === loop) this.dispatcher = undefined;
      await loop.stop();
      await this.sender?.close();
      this.sender = undefined;
    }
    this.live.stop();
    await this.flushPushes();
    if (this.push) await closeProviders(this.push);
  }

  /** Replaces the push providers (tests, or an operator wiring a custom provider). */
  configurePush(providers: PushProviders): void {
    this.push = providers;
    this.pushLoading = undefined;
  }

  /** The push providers: configured, or loaded from config.push on first use. */
  async pushProviders(): Promise<PushProviders> {
    if (this.push) return this.push;
    this.pushLoading ??= providersFromConfig(this.deps.config.push).catch((err) => {
      this.log.error({ err }, 'push providers could not be configured; pushes are off');
      return {};
    });
    this.push = await this.pushLoading;
    return this.push;
  }

  /** Waits for every push started so far (tests, graceful shutdown). */
  async flushPushes(): Promise<void> {
    while (this.pushesInFlight.size > 0) await Promise.allSettled([...this.pushesInFlight]);
  }
}
