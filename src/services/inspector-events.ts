// What the web inspector (docs/inspector.md) watches live: a note that a user of an application has
// new points stored and evaluated. The page then reads the user's location and trigger states again,
// so a note carries ids only. One hub per running app (plugins/inspector.ts), nothing in module scope.

export interface InspectorEvent {
  type: 'location';
  user_id: string;
}

export type InspectorListener = (event: InspectorEvent) => void;

interface Watch {
  appId: string;
  /** One user's notes, or (undefined) every user's of the application. */
  userId?: string;
  listener: InspectorListener;
}

export class InspectorEvents {
  private readonly watches = new Set<Watch>();

  /** Starts a watch; the returned function ends it. */
  watch(appId: string, userId: string | undefined, listener: InspectorListener): () => void {
    const w: Watch = { appId, userId, listener };
    this.watches.add(w);
    return () => this.watches.delete(w);
  }

  /** A user's points were stored and evaluated (their machines moved or not). */
  locationStored(appId: string, userId: string): void {
    for (const w of this.watches) {
      if (w.appId === appId && (w.userId === undefined || w.userId === userId)) w.listener({ type: 'location', user_id: userId });
    }
  }

  get size(): number {
    return this.watches.size;
  }
}
