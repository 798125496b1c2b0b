// Group commit for the embedded engine. NeDB appends every write to its file with its own
// open-write-close, one operation after another, so a busy collection spends its time in file
// system round trips (measured: ~1,400 single-point location updates/s, the main thread idle a
// third of the time). Here NeDB's in-memory change runs at once and its lines join a buffer; at
// the end of the event-loop turn (setImmediate) the buffer is written by one synchronous `write`
// on a kept-open descriptor, and every caller whose lines it held is resolved. A write
// acknowledged to a client is in the file (the OS page cache, as before: no fsync).
//
// Synchronous because the writes are small (a batch's lines) and frequent (several files per
// batch): an asynchronous FileHandle.write cost 13-20 µs of main-thread time each plus a thread
// pool round trip and its completion callback (measured on this box, 300-byte lines), and it was
// 13% of the main thread's time under load; writeSync of the same lines takes 5-15 µs.
import { closeSync, openSync, writeSync } from 'node:fs';

export class GroupAppender {
  private fd: number | undefined;
  private pending: string[] = [];
  /** The flush that will take everything enqueued since the last one. */
  private next: Promise<void> | undefined;
  /** Promise of the flush that contains the most recently enqueued lines. */
  private latest: Promise<void> = Promise.resolve();

  constructor(private readonly filename: string) {}

  enqueue(text: string): Promise<void> {
    this.pending.push(text);
    this.next ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        try {
          this.flush();
          resolve();
        } catch (err) {
          reject(err);
        }
      });
    });
    this.latest = this.next;
    return this.next;
  }

  /** Resolves once every line enqueued so far is written (rejects if that write failed). */
  sync(): Promise<void> {
    return this.latest;
  }

  /** Waits for every write, then closes the descriptor (NeDB is about to rewrite the file). */
  async release(): Promise<void> {
    await this.latest.catch(() => undefined);
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) closeSync(fd);
  }

  private flush(): void {
    this.next = undefined;
    const text = this.pending.join('');
    this.pending = [];
    if (!text) return;
    this.fd ??= openSync(this.filename, 'a');
    const bytes = Buffer.from(text, 'utf8');
    let off = 0;
    while (off < bytes.length) off += writeSync(this.fd, bytes, off, bytes.length - off);
  }
}
