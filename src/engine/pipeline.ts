// The host's two stages. Batches are pipelined: while batch N is being persisted, batch N+1 is
// already in the shards (the main thread sat ~30% idle when evaluate, persist and reply ran in
// lockstep). Engine calls run one at a time, persists run one at a time and in the order of the
// engine calls, so the store follows the shards exactly; at most one batch waits for its persist
// while the next is evaluated. Ticks and membership changes are stages like batches; geofence
// changes run alone (`exclusive`). A shard rebuilt after a crash is seeded only once every result
// the engine returned before has been persisted (`persistedBeforeCall`).
import type { ApplyResult } from './engine.js';
import { settled } from './host-state.js';

export class Stages {
  /** Tail of the engine stage: calls run one at a time. */
  private engineTail: Promise<unknown> = Promise.resolve();
  /** Tail of the persist stage: persists run one at a time, in the order of their engine calls. */
  private persistTail: Promise<unknown> = Promise.resolve();
  /** The persists queued before the engine call now running: what a rebuilt shard must wait for. */
  private persistedBefore: Promise<unknown> = Promise.resolve();

  /**
   * @param afterCall runs after every engine call (the host re-arms its deadline timer there)
   * @param persistReleased stores what shards rebuilt during a call released as they loaded
   */
  constructor(
    private readonly afterCall: () => void,
    private readonly persistReleased: () => Promise<void>,
  ) {}

  /** Resolves once every persist queued before the running engine call is done (or failed). */
  persistedBeforeCall(): Promise<unknown> {
    return this.persistedBefore.catch(settled);
  }

  /**
   * One engine call and the persist of its result. The call runs after every earlier engine call;
   * the persist after every earlier persist, so the store receives results in engine order.
   */
  pipeline<R extends ApplyResult>(call: () => Promise<R>, persist: (res: R) => Promise<void>): Promise<void> {
    const before = this.persistTail;
    const result = this.engineTail.then(async () => {
      this.persistedBefore = before;
      const res = await call();
      this.afterCall();
      return res;
    });
    this.engineTail = result.catch(settled);
    // A shard rebuilt during the call released pairs as it loaded: stored ahead of the call's results.
    const done = Promise.all([result, before.catch(settled)]).then(async ([res]) => {
      await this.persistReleased();
      await persist(res);
    });
    this.persistTail = done.catch(settled);
    return done;
  }

  /** Runs `fn` alone: after every queued engine call and persist, and before any later one. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = Promise.all([this.engineTail, this.persistTail]).then(() => {
      this.persistedBefore = Promise.resolve();
      return fn();
    });
    this.engineTail = run.catch(settled);
    this.persistTail = run.catch(settled);
    return run;
  }

  /** Resolves when everything queued so far has run (failures included). */
  async idle(): Promise<void> {
    await Promise.all([this.engineTail.catch(settled), this.persistTail.catch(settled)]);
  }
}
