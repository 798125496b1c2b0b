// Receivers coming back from an outage. The URLs of an origin whose rounds end in a retry are
// remembered; when one of its rounds delivers again, its callbacks waiting for a later round of
// the backoff are made due at once, so a receiver back from an outage need not wait it out.
import type { FiringRepo } from '../store/firings.js';
import type { DeliveryLog, DeliveryReport } from './types.js';

/** URLs remembered per failing origin at most. */
const MAX_FAILING_URLS = 1_000;

export class RecoveringReceivers {
  private readonly failing = new Map<string, Set<string>>();

  constructor(
    private readonly firings: FiringRepo,
    private readonly now: () => number,
    private readonly log: DeliveryLog,
    /** Called when callbacks were made due: the loop should poll. */
    private readonly onDue: () => void,
  ) {}

  /** Origins whose last round ended in a retry (a count: no label per receiver). */
  get failingOrigins(): number {
    return this.failing.size;
  }

  roundEnded(origin: string, url: string, status: DeliveryReport['status']): void {
    if (status === 'pending') {
      let urls = this.failing.get(origin);
      if (!urls) this.failing.set(origin, (urls = new Set()));
      if (urls.size < MAX_FAILING_URLS) urls.add(url);
      return;
    }
    if (status !== 'delivered') return;
    const urls = this.failing.get(origin);
    if (!urls) return;
    this.failing.delete(origin);
    this.firings.dueAgain([...urls], this.now()).then(
      (n) => {
        if (n > 0) {
          this.log.info({ origin, count: n }, 'receiver answers again: its waiting callbacks are due now');
          this.onDue();
        }
      },
      (err) => this.log.error({ err }, 'making a recovered receiver\'s callbacks due failed'),
    );
  }
}
