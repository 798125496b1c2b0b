// How far the delivery loop's polls read the due rows, and how often it looks past the rows of
// busy receivers. A poll for a low queue (or the timed one) reads the base page. A look further
// (the queue holds only rows of receivers whose slots are all taken) whose page held only rows for
// full queues reads twice as far the next time (up to MAX_PAGE) and comes half as often (up to
// MAX_SEARCH_MS apart), so the rows of other receivers behind a long backlog still get their turn
// without the backlog's heads being read at length again and again.

/** The longest page a poll reads. */
const MAX_PAGE = 10_000;
/** The first wait between two looks further (ms). */
const FIRST_SEARCH_MS = 250;
/** The longest wait between two looks further that found no other receiver's rows (ms). */
const MAX_SEARCH_MS = 4_000;

export class PollPages {
  private page: number;
  private searchEveryMs = FIRST_SEARCH_MS;
  /** performance.now() before which no look further is due. */
  searchFrom = 0;

  constructor(private readonly basePage: number) {
    this.page = basePage;
  }

  /** Rows the next poll reads at most. */
  limit(search: boolean): number {
    return search ? this.page : this.basePage;
  }

  /**
   * After a poll of `limit` rows that read `read`: `skipped` rows were left for full queues, and
   * `fresh` were taken for receivers that had none queued.
   */
  polled(search: boolean, limit: number, read: number, skipped: number, fresh: number, now: number): void {
    if (skipped === 0 || (search && fresh > 0)) {
      this.page = this.basePage;
      this.searchEveryMs = FIRST_SEARCH_MS;
    } else if (search) {
      if (read >= limit) this.page = Math.min(MAX_PAGE, 2 * limit);
      this.searchEveryMs = Math.min(MAX_SEARCH_MS, 2 * this.searchEveryMs);
    }
    if (search) this.searchFrom = now + this.searchEveryMs;
  }
}
