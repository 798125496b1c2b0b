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
import { closeSync, openSync, renameSync, writeSync } from 'node:fs';

export class GroupAppender {
  private fd: number | undefined;
  private pending: string[] = [];
  /** The flush that will take everything enqueued since the last one. */
  private next: Promise<void> | undefined;
  /** Promise of the flush that contains the most recently enqueued lines. */
  private latest: Promise<void> = Promise.resolve();
  /** While a compaction writes its snapshot: every text written since it began, in order. */
  private captured: string[] | undefined;

  constructor(private readonly filename: string) {}

  enqueue(text: string): Promise<void> {
    this.pending.push(text);
    return this.scheduled();
  }

  /** Queues these lines, each followed by a newline (written without joining them first). */
  enqueueLines(lines: readonly string[]): Promise<void> {
    for (const line of lines) this.pending.push(line, NEWLINE);
    return this.scheduled();
  }

  private scheduled(): Promise<void> {
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

  /**
   * Compaction without stopping writes. From here on every text written is also kept; the caller
   * writes a snapshot of the data to `tempFile` meanwhile, then calls switchTo().
   */
  beginCapture(): void {
    this.captured = [];
  }

  /** The text written since beginCapture() or the last call, which the caller copies itself. */
  takeCaptured(): string {
    const text = (this.captured ?? []).join('');
    if (this.captured) this.captured = [];
    return text;
  }

  /**
   * Appends to `tempFile` every text written since beginCapture() (or the last takeCaptured())
   * and whatever is still pending, then renames it over the file, all in one synchronous step: no
   * write lands in the old file after its copy was taken, and a crash leaves either file whole. A
   * text written both before the snapshot was read and again here repeats a state the snapshot
   * holds already: replaying the file still ends with each document's latest line.
   */
  switchTo(tempFile: string): void {
    // What is still pending goes to the new file only; its callers are resolved by their flush,
    // which then finds nothing left. If this throws, nothing has changed: they go to the old file.
    const tail = (this.captured ?? []).concat(this.pending);
    const fd = openSync(tempFile, 'a');
    try {
      writePieces(fd, tail);
    } finally {
      closeSync(fd);
    }
    renameSync(tempFile, this.filename);
    this.pending = [];
    this.captured = undefined;
    this.closeFd(); // the old file's descriptor: the next write opens the new file
  }

  endCapture(): void {
    this.captured = undefined;
  }

  /** Waits for every write, then closes the descriptor. */
  async release(): Promise<void> {
    await this.latest.catch(() => undefined);
    this.closeFd();
  }

  private closeFd(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) closeSync(fd);
  }

  private flush(): void {
    this.next = undefined;
    const pieces = this.pending;
    this.pending = [];
    if (pieces.length === 0) return;
    const fd = (this.fd ??= openSync(this.filename, 'a'));
    writePieces(fd, pieces);
    if (this.captured) for (const piece of pieces) this.captured.push(piece);
  }
}

const NEWLINE = '\n';

/**
 * One buffer for every write, the pieces encoded into it one after another. Joining them and
 * encoding the result (Buffer.from) made two copies per flush: the joined string of a busy turn is
 * large enough to be allocated straight into the old generation, and the Buffer is memory outside
 * the heap; both bring major garbage collections forward.
 */
const scratch = Buffer.allocUnsafe(1 << 20);

function writePieces(fd: number, pieces: readonly string[]): void {
  let used = 0;
  for (const piece of pieces) {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const room = piece.length * 3;
    if (used + room > scratch.length) {
      writeBytes(fd, scratch, used);
      used = 0;
      if (room > scratch.length) {
        // A piece this large (a huge document) is encoded on its own; the buffer stays small.
        const bytes = Buffer.from(piece, 'utf8');
        writeBytes(fd, bytes, bytes.length);
        continue;
      }
    }
    used += scratch.write(piece, used, 'utf8');
  }
  writeBytes(fd, scratch, used);
}

function writeBytes(fd: number, bytes: Buffer, length: number): void {
  let off = 0;
  while (off < length) off += writeSync(fd, bytes, off, length - off);
}
