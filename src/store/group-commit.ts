// Group commit for the embedded engine. NeDB appends every write to its file with its own
// open-write-close, one operation after another, so a busy collection spends its time in file
// system round trips (measured: ~1,400 single-point location updates/s, the main thread idle a
// third of the time). Here NeDB's in-memory change runs at once and its lines join a buffer that
// is written by one `write` on a kept-open handle; the caller's promise resolves only when a write
// containing its lines has completed, so a write acknowledged to a client is on disk as before.
import { open, type FileHandle } from 'node:fs/promises';

export class GroupAppender {
  private handle: FileHandle | undefined;
  private pending: string[] = [];
  /** The write now running (or the last one). */
  private inFlight: Promise<void> = Promise.resolve();
  /** The write that will take everything enqueued since inFlight started. */
  private next: Promise<void> | undefined;
  /** Promise of the write that contains the most recently enqueued lines. */
  private latest: Promise<void> = Promise.resolve();

  constructor(private readonly filename: string) {}

  enqueue(text: string): Promise<void> {
    this.pending.push(text);
    if (!this.next) {
      const after = this.inFlight;
      this.next = after.then(() => this.flush(), () => this.flush());
    }
    this.latest = this.next;
    return this.next;
  }

  /** Resolves once every line enqueued so far is written (rejects if that write failed). */
  sync(): Promise<void> {
    return this.latest;
  }

  /** Waits for every write, then closes the handle (NeDB is about to rewrite the file). */
  async release(): Promise<void> {
    await this.latest.catch(() => undefined);
    const h = this.handle;
    this.handle = undefined;
    await h?.close();
  }

  private async flush(): Promise<void> {
    this.inFlight = this.next!;
    this.next = undefined;
    const text = this.pending.join('');
    this.pending = [];
    if (!text) return;
    this.handle ??= await open(this.filename, 'a');
    await this.handle.write(text);
  }
}
