// The embedded store's checkpoint thread: its own connection to the database copies the WAL back
// into the database file (PASSIVE: never waiting for, nor blocking, the service's writes), with the
// fsync that takes, off the thread that serves the API.
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

function checkpoint(): void {
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
