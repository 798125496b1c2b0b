// The embedded store's checkpoint thread: its own connection to the database copies the WAL back
// into the database file (PASSIVE: never waiting for, nor blocking, the service's writes), with the
// fsync that takes, off the thread that serves the API.
//
// On a disk that is (nearly) full, a checkpoint begins only when the free space can take the whole
// WAL: the database file grows by up to that much while the frames are copied, and one that ran out
// of space half-way kept what it took (the space an operator had just freed) while the WAL could not
// be reused yet, so writes stayed refused. Skipped, the freed space goes to the writes, which resume
// at once; the WAL is copied back (and its space reused) once the free space is at least its size
// (docs/operations.md, "A full disk").
import { statfsSync, statSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../src/store/sqlite/driver.js';
import { nameThisThread } from './thread-name.js';

interface Init {
  file: string;
  intervalMs: number;
}

const { file, intervalMs } = workerData as Init;
nameThisThread('gt-checkpoint');
const db = openDatabase(file);
db.pragma('busy_timeout = 1000');
let stopped = false;

/** Beyond the WAL's size: the -shm index and the database header also grow as pages are copied. */
const MARGIN_BYTES = 1024 * 1024;

/** Whether the disk can take what a checkpoint of the whole WAL may add to the database file. */
function roomForCheckpoint(): boolean {
  try {
    const wal = statSync(`${file}-wal`).size;
    const fs = statfsSync(path.dirname(file));
    return fs.bavail * fs.bsize >= wal + MARGIN_BYTES;
  } catch {
    return true;
  }
}

function checkpoint(): void {
  if (!roomForCheckpoint()) return;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    // A full disk or a busy database: the WAL keeps everything; the next round tries again.
    parentPort?.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
}

const timer = setInterval(() => {
  if (!stopped) checkpoint();
}, intervalMs);

parentPort?.on('message', (msg: 'now' | 'stop') => {
  if (msg === 'now') checkpoint();
  else {
    stopped = true;
    clearInterval(timer);
    db.close();
    parentPort?.close();
  }
});
