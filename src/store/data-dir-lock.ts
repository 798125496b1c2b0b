// One process per data directory. SQLite itself would let two share the database, but each keeps
// caches of what it wrote (tokens, geofences, machine records), and the dispatcher treats every
// lease it finds at start as orphaned, which is only true when it is alone.
// Like PostgreSQL's postmaster.pid: a LOCK file names the owner; a lock whose process is gone
// (killed, crashed) is stale and taken over.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

export class DataDirInUseError extends Error {}

interface LockInfo {
  pid: number;
  host: string;
  since: string;
}

export interface DataDirLock {
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(file: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockInfo>;
    return typeof info.pid === 'number' ? { pid: info.pid, host: String(info.host ?? ''), since: String(info.since ?? '') } : undefined;
  } catch {
    return undefined; // missing, or half-written by an owner killed while writing it: not a live owner
  }
}

/**
 * Takes the directory's lock or throws DataDirInUseError naming the owner. A lock held by this
 * same process (a store reopened without a close, as after a simulated crash in tests) is taken
 * over: only another live process is refused.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = path.join(dataDir, 'LOCK');
  const me: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let tries = 0; ; tries++) {
    try {
      writeFileSync(file, JSON.stringify(me), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 2) throw err;
    }
    const owner = readLock(file);
    if (owner && owner.pid !== process.pid) {
      if (owner.host !== me.host) {
        throw new DataDirInUseError(`${dataDir} is locked by process ${owner.pid} on host ${owner.host} since ${owner.since}; `
          + `one data directory serves one process. Remove ${file} only if that process is not running.`);
      }
      if (alive(owner.pid)) {
        throw new DataDirInUseError(`${dataDir} is in use by process ${owner.pid} since ${owner.since}; `
          + `one data directory serves one process (two would overwrite each other's writes). Stop it, or use another DATA_DIR.`);
      }
    }
    rmSync(file, { force: true }); // stale: its process is gone
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      // Only our own lock: a later owner's file stays.
      if (readLock(file)?.pid === process.pid) rmSync(file, { force: true });
    },
  };
}
