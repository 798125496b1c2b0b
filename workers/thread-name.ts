// The service's own threads carry names the operating system shows (`top -H`, `ps -T`, /proc):
// `gt-shard-N` for the trigger engine's shard N, `gt-sender` for the callback sender. Node gives every
// thread the process's name, so without this the shard and the sender were indistinguishable
// from V8's and libuv's helpers. Linux only (a thread may rename itself through /proc); elsewhere
// nothing happens. Never for the main thread, whose name is the process's.
import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/** Names the calling worker thread (Linux keeps 15 characters). */
export function nameThisThread(name: string): void {
  if (isMainThread) return;
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // Not Linux, or /proc not mounted: the thread keeps its name.
  }
}
