// Location updates into the engine: each user's membership reaches their shard before their first
// point, and the updates that arrive while the engine is busy become the next batch.
import { apiError } from '../errors.js';
import type { ApplicationDoc, UserDoc } from '../store/documents.js';
import type { BodiesOutput, BodyRequest, BodyResult, UserSeed } from '../../workers/protocol.js';
import type { HostState, Pending, PointsInput } from './host-state.js';
import { persistBatch, persistResult } from './persist.js';
import type { Stages } from './pipeline.js';

/** Retryable: the points were not taken, and a restarted engine will take them. */
export const shuttingDown = () => apiError('service_unavailable', 'The trigger engine is restarting; send these points again', { 'retry-after': '1' });

export class Intake {
  /** Users whose membership is on its way to their shard. */
  private readonly joining = new Map<string, Promise<void>>();
  /** Memberships waiting for the next engine call, and that call. */
  private joinQueue: UserSeed[] = [];
  private joinCall: Promise<void> | undefined;
  /** Location updates not yet handed to the engine: the next batch. */
  private pending: Pending[] = [];
  /** A batch is in the engine stage (the next one gathers meanwhile). */
  private batchInEngine = false;
  /** Batches handed to the engine and not yet persisted (at most two: pipelining depth). */
  private batchesInFlight = 0;

  constructor(
    private readonly s: HostState,
    private readonly stages: Stages,
    private readonly closed: () => boolean,
  ) {}

  async ingest(app: ApplicationDoc, user: UserDoc, input: PointsInput, now: number): Promise<void> {
    if (this.closed()) throw shuttingDown();
    const joining = this.ensureUser(app, user);
    if (joining) await joining;
    await new Promise<void>((resolve, reject) => {
      this.pending.push({ userId: user._id, app, user, input, now, resolve, reject });
      this.drain();
    });
  }

  /** A deleted user: a later request of theirs joins again. */
  forget(userId: string): void {
    this.joining.delete(userId);
  }

  /**
   * A user the shards do not know yet (created since start), or whose timezone changed: their
   * membership goes to the shard before any of their points. Undefined when there is nothing to
   * wait for; a second request of the user waits for the first one's.
   */
  private ensureUser(app: ApplicationDoc, user: UserDoc): Promise<void> | undefined {
    const known = this.s.users.get(user._id);
    if (known && known.timezone === user.timezone) return this.joining.get(user._id);
    this.s.users.set(user._id, { appId: app._id, timezone: user.timezone });
    const joining = (async () => {
      const subs = await this.s.ctx.store.subscriptions.forUser(app._id, user._id);
      const layers = [app.default_layer_id, ...subs.map((sub) => sub.layer_id)];
      await this.join({ userId: user._id, layers, timezone: user.timezone });
    })();
    this.joining.set(user._id, joining);
    joining.then(
      () => this.joining.get(user._id) === joining && this.joining.delete(user._id),
      () => {
        // Not known after all: the next request tries again.
        if (this.joining.get(user._id) !== joining) return;
        this.joining.delete(user._id);
        this.s.users.delete(user._id);
      },
    );
    return joining;
  }

  /**
   * Sends a user's membership to their shard, together with every other user joining meanwhile:
   * one engine call for a burst of new phones, not one each (250 phones starting together queued
   * 250 calls in front of their first points).
   */
  private join(seed: UserSeed): Promise<void> {
    this.joinQueue.push(seed);
    this.joinCall ??= this.stages.pipeline(
      () => {
        this.joinCall = undefined; // later joiners make the next call
        return this.s.engine.setUsers(this.joinQueue.splice(0));
      },
      (res) => persistResult(this.s, res, null),
    );
    return this.joinCall;
  }

  /**
   * Hands everything that arrived meanwhile to the engine as one batch, once the engine stage is
   * free and at most one batch still waits for its persist: no waiting when idle, large batches
   * under load. After the host closed, refuses what has not reached the engine.
   */
  drain(): void {
    if (this.pending.length === 0) return;
    if (this.closed()) {
      // Nothing of it reached the engine or was acknowledged: the phone sends it again.
      for (const p of this.pending.splice(0)) p.reject(shuttingDown());
      return;
    }
    if (this.batchInEngine || this.batchesInFlight >= 2) return;
    const batch = this.pending;
    this.pending = [];
    let results: BodyResult[] = [];
    this.batchInEngine = true;
    this.batchesInFlight++;
    const done = this.stages.pipeline(
      async () => {
        try {
          const out = await this.evaluate(batch);
          results = out.results;
          return out;
        } finally {
          this.batchInEngine = false;
          queueMicrotask(() => this.drain());
        }
      },
      (res) => persistBatch(this.s, res, batch),
    );
    done.then(
      () => {
        // A request refused whole moved nothing: it gets its 400, the others their answer.
        batch.forEach((p, i) => {
          const r = results[i];
          if (r && 'error' in r) p.reject(apiError(r.code, r.error));
          else p.resolve();
        });
      },
      (err) => {
        // Nothing of a batch cut short by a shutdown was acknowledged: the phone sends it again.
        for (const p of batch) p.reject(this.closed() ? shuttingDown() : err);
      },
    ).finally(() => {
      this.batchesInFlight--;
      this.drain();
    });
  }

  /** The engine's side of a batch: the shards read every body, evaluate its points and shape what is stored. */
  private evaluate(batch: readonly Pending[]): Promise<BodiesOutput> {
    return this.s.engine.applyBodies(batch.map(bodyRequest));
  }
}

function bodyRequest(p: Pending): BodyRequest {
  // Fields one by one (see docs/architecture.md "Conventions" on spreads in V8 11).
  const r: BodyRequest = { userId: p.userId, now: p.now, all: Boolean(p.app.store_history) };
  if ('text' in p.input) r.text = p.input.text;
  else r.value = p.input.value;
  if (p.input.timeZone !== undefined) r.timeZone = p.input.timeZone;
  return r;
}
