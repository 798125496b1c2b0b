// Tells in-process caches that a collection changed. Every update and delete made through the
// store's repositories (either engine) reports its collection once it has settled, so a cache of
// documents (the auth token cache) is dropped exactly when they may have changed, whoever made the
// change in this process. Inserts are not reported: a new document cannot make a cached one stale.
export type WriteListener = (collection: string) => void;

export class WriteFeed {
  private readonly listeners = new Map<string, WriteListener[]>();

  on(collections: readonly string[], listener: WriteListener): void {
    for (const name of collections) this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }

  emit(name: string): void {
    for (const l of this.listeners.get(name) ?? []) l(name);
  }
}

/** `write`, reporting once it settled (also when it failed: a failed write may still have changed something). */
export async function settled<R>(write: Promise<R>, changed: () => void): Promise<R> {
  try {
    return await write;
  } finally {
    changed();
  }
}
