// Retention: what is done is removed once it is old enough. Without it the delivery log and the
// histories grow with traffic for ever on disk (each firing stays as its trigger/history entry,
// each callback attempt as an entry of the delivery log).
//
// - Callbacks (DELIVERY_RETENTION_DAYS, default 30): a delivered or dead callback last changed
//   before the cutoff loses its delivery log (its attempts) and, if dead, the payload it kept for
//   inspection. A callback still to be sent keeps everything. trigger/history keeps showing the
//   outcome: it is the firing's own.
// - Histories (HISTORY_RETENTION_DAYS, default 0 = kept): firings (with what is left of their
//   delivery log), messages and location history points dated before the cutoff; never a callback
//   still to be sent. The cutoff never comes closer than the longest layer rate limit plus a day,
//   so a restarted engine still finds the last firing that gates the next one
//   (EngineHost.recentFirings).
// - The decision timeline (TIMELINE_RETENTION_DAYS, default 30): entries dated before the cutoff.
//   (Each pair is also kept to TIMELINE_MAX_PER_PAIR entries as they are written: engine/timeline.ts.)
//   On the embedded store, points and entries are found in the order they were stored (no index on
//   their date): one dated before the cutoff but stored after younger ones goes once those have.
//
// - Authorization codes (always): a day after they expired (services/auth-codes.ts).
// - message/device payloads (always): once expired, as no stream may take them any more.
//
// A sweep deletes in chunks of ids with a turn of the event loop between them, and at most
// `maxChunks` chunks per collection; the next sweep takes the rest.
import { removeOldCodes } from './auth-codes.js';
import type { ServiceContext } from './context.js';
import { longestLayerRateLimitS } from './layers.js';

const DAY_MS = 86_400_000;

type Rounds = { chunk: number; maxChunks: number; signal?: AbortSignal };

export interface SweepOptions {
  /** Ids per find-and-delete round. */
  chunk?: number;
  /** Rounds per collection and sweep. */
  maxChunks?: number;
  /** Ends the sweep before its next round (a shutdown does not wait for a long sweep). */
  signal?: AbortSignal;
}

export interface SweepResult {
  callbacks: number;
  attempts: number;
  history: number;
  messages: number;
  locations: number;
  codes: number;
  timeline: number;
  device_messages: number;
}

export async function sweepExpired(ctx: ServiceContext, now = ctx.now(), opts: SweepOptions = {}): Promise<SweepResult> {
  const o: Rounds = { chunk: opts.chunk ?? 1000, maxChunks: opts.maxChunks ?? 100, signal: opts.signal };
  const result: SweepResult = { callbacks: 0, attempts: 0, history: 0, messages: 0, locations: 0, codes: 0, timeline: 0, device_messages: 0 };
  const { deliveryRetentionDays, historyRetentionDays, timelineRetentionDays } = ctx.config;

  if (deliveryRetentionDays > 0) {
    const cutoff = now - deliveryRetentionDays * DAY_MS;
    result.callbacks = await inRounds(o, async (n) => {
      const r = await ctx.store.firings.sweepDelivery(cutoff, n);
      result.attempts += r.attempts;
      return r.callbacks;
    });
  }

  if (historyRetentionDays > 0) {
    const cutoff = now - Math.max(historyRetentionDays * DAY_MS, (await longestLayerRateLimitS(ctx)) * 1000 + DAY_MS);
    result.history = await inRounds(o, (n) => ctx.store.firings.sweepHistory(cutoff, n));
    result.messages = await inRounds(o, (max) => ctx.store.messages.removeDatedBefore(cutoff, max));
    result.locations = await inRounds(o, (n) => ctx.store.locations.removeDatedBefore(cutoff, n));
  }
  result.codes = await inRounds(o, (max) => removeOldCodes(ctx, now, max));
  result.device_messages = await inRounds(o, (max) => ctx.store.deviceMessages.removeExpired(now, max));

  if (timelineRetentionDays > 0) {
    const cutoff = now - timelineRetentionDays * DAY_MS;
    result.timeline = await inRounds(o, (n) => ctx.store.timeline.removeDatedBefore(cutoff, n));
  }
  return result;
}

/** Calls `remove` (which removes up to `max` and says how many went) until it finds fewer, or the cap: how many went. */
async function inRounds(o: Rounds, remove: (max: number) => Promise<number>): Promise<number> {
  let removed = 0;
  for (let i = 0; i < o.maxChunks && !o.signal?.aborted; i++) {
    const n = await remove(o.chunk);
    removed += n;
    if (n < o.chunk) break;
    await new Promise((r) => setImmediate(r));
  }
  return removed;
}

export interface RetentionHandle {
  stop(): Promise<void>;
}

/** Sweeps every `RETENTION_SWEEP_S` (first one a sweep interval after start); expired authorization codes go even when both retentions are off. */
export function startRetention(ctx: ServiceContext, log: { info(o: object, msg: string): void; error(o: object, msg: string): void }): RetentionHandle {
  const { retentionSweepS } = ctx.config;
  let running: Promise<void> | undefined;
  const stopping = new AbortController();
  const timer = setInterval(() => {
    if (running) return;
    running = sweepExpired(ctx, ctx.now(), { signal: stopping.signal })
      .then((r) => {
        if (Object.values(r).some((n) => n > 0)) log.info({ retention: r }, 'removed expired documents');
      })
      .catch((err) => log.error({ err }, 'retention sweep failed'))
      .finally(() => {
        running = undefined;
      });
  }, retentionSweepS * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
