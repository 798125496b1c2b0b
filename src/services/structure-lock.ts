// One application's places and triggers against its layer and place deletions. A layer deleted
// while a place or trigger was being created in it left that object behind, orphaned: the create
// checked the layer before the delete, and inserted after the delete's cascade had swept (2 of 110
// tries in a probe of the API). Creates and updates of places and triggers run side by side; a
// layer or place deletion waits for those under way, then runs alone (new ones wait for it).
// In-process: the embedded store has one process; API nodes sharing MongoDB keep the race.
// The locks belong to the ServiceContext (services/context.ts): one set per running app.
import { Semaphore } from 'async-mutex';
import type { ServiceContext } from './context.js';

/**
 * A deletion takes every slot, a create or update one. Not more slots than creates can usefully run
 * at once: each release makes async-mutex walk every weight from the free count down to 1, so at
 * 2^20 slots every create and update spent 1-3 ms of main thread in that loop (`npm run bench:api`:
 * trigger/create with an inline place at 129 requests/s, p50 117 ms). Creates beyond this many wait.
 */
const EXCLUSIVE = 64;

/** Per application, the semaphore its structure changes share. */
export class StructureLocks {
  private readonly perApp = new Map<string, Semaphore>();

  /** A create or update of a place or trigger of `appId` (alongside others, never during a deletion). */
  placing<T>(appId: string, fn: () => Promise<T>): Promise<T> {
    return this.semaphoreOf(appId).runExclusive(fn, 1);
  }

  /** A layer or place deletion of `appId`, alone. */
  removing<T>(appId: string, fn: () => Promise<T>): Promise<T> {
    return this.semaphoreOf(appId).runExclusive(fn, EXCLUSIVE);
  }

  private semaphoreOf(appId: string): Semaphore {
    let s = this.perApp.get(appId);
    if (!s) this.perApp.set(appId, (s = new Semaphore(EXCLUSIVE)));
    return s;
  }
}

/** A create or update of a place or trigger of `appId` (alongside others, never during a deletion). */
export function placing<T>(ctx: ServiceContext, appId: string, fn: () => Promise<T>): Promise<T> {
  return ctx.locks.placing(appId, fn);
}

/** A layer or place deletion of `appId`, alone. */
export function removing<T>(ctx: ServiceContext, appId: string, fn: () => Promise<T>): Promise<T> {
  return ctx.locks.removing(appId, fn);
}
