// Changes to geofence-defining data, published by the services after the store has them, so the
// engine can keep its workers' geofence indexes in step without the services knowing the engine.
import type { LayerDoc, PlaceDoc, TriggerDoc, UserDoc } from '../store/documents.js';

export type Change =
  | { kind: 'trigger'; op: 'saved' | 'removed'; doc: TriggerDoc }
  | { kind: 'place'; op: 'saved' | 'removed'; doc: PlaceDoc }
  | { kind: 'layer'; op: 'saved' | 'removed'; doc: LayerDoc }
  | { kind: 'subscription'; op: 'saved' | 'removed'; appId: string; userId: string; layerId: string }
  | { kind: 'user'; op: 'removed'; doc: UserDoc };

export type ChangeListener = (change: Change) => void | Promise<void>;

export class ChangeFeed {
  private readonly listeners: ChangeListener[] = [];

  on(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /** Awaited by the service, so that a change is in effect for the next point once the call returns. */
  async publish(change: Change): Promise<void> {
    for (const l of this.listeners) await l(change);
  }
}
