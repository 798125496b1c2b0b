// How many replays may be in flight (waiting for a replay thread or running): so many per
// application and so many in all. Past either, a replay is refused at once with a 429 rather than
// queued, so that one application cannot fill the queue in front of the others.
import { apiError } from '../errors.js';

export class ReplayGate {
  private readonly perApp = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly maxPerApp: number,
    private readonly maxTotal: number,
  ) {}

  /** Takes a place for the application's replay; the returned function gives it back (once). */
  enter(appId: string): () => void {
    const mine = this.perApp.get(appId) ?? 0;
    if (mine >= this.maxPerApp) {
      throw apiError('too_many_requests', `This application already has ${mine} replay${mine > 1 ? 's' : ''} running; it may run ${this.maxPerApp} at a time: send the next when it has answered`, { 'retry-after': '5' });
    }
    if (this.total >= this.maxTotal) {
      throw apiError('too_many_requests', `The service is running ${this.total} replays, as many as it runs at once: try again shortly`, { 'retry-after': '5' });
    }
    this.perApp.set(appId, mine + 1);
    this.total++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.total--;
      const n = (this.perApp.get(appId) ?? 1) - 1;
      if (n > 0) this.perApp.set(appId, n);
      else this.perApp.delete(appId);
    };
  }

  /** Replays in flight: of one application, or in all. */
  inFlight(appId?: string): number {
    return appId === undefined ? this.total : (this.perApp.get(appId) ?? 0);
  }
}
