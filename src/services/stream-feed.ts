// What the streaming API (reference §4.8, plugins/streaming.ts) hears about: a user's points
// stored (after location/update made them durable) and a message posted to a group. Published by
// the services, heard by whoever subscribed (the Socket.IO server); with no listener, publishing
// costs nothing. A listener's failure never fails the request that published.
export type StreamEvent =
  | { kind: 'location'; appId: string; userId: string }
  | { kind: 'group_message'; appId: string; groupToken: string; message: Record<string, unknown>; userId?: string };

export type StreamListener = (event: StreamEvent) => void | Promise<void>;

export class StreamFeed {
  private readonly listeners = new Set<StreamListener>();

  /** Returns the function that removes the listener. */
  on(listener: StreamListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Awaited, so an event is on its sockets when the request that caused it is answered. */
  async publish(event: StreamEvent, onError: (err: unknown) => void = () => {}): Promise<void> {
    for (const l of this.listeners) {
      try {
        await l(event);
      } catch (err) {
        onError(err);
      }
    }
  }
}
