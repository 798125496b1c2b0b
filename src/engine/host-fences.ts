// The host's copy of the geofences the engine holds, indexed by trigger, place and layer, and kept
// in step with every diff the host applies. A change to one place or trigger then looks at that
// place's or trigger's geofences only: diffing against every geofence made creating 100,000
// places through the API quadratic, and mapping every geofence to its layer per batch was 38% of
// the main thread with 100,000 geofences.
import type { Geofence } from '../../workers/protocol.js';
import { valuesOf, withoutValue, withValue, type OneOrSet } from '../store/one-or-set.js';
import type { FenceDiff } from './geofences.js';

export class HostFences {
  private readonly byKey = new Map<string, Geofence>();
  private readonly byTrigger: KeyIndex = new Map();
  private readonly byPlace: KeyIndex = new Map();
  private readonly byLayer: KeyIndex = new Map();

  constructor(fences: Iterable<Geofence> = []) {
    for (const f of fences) this.add(f);
  }

  get(key: string): Geofence | undefined {
    return this.byKey.get(key);
  }

  all(): IterableIterator<Geofence> {
    return this.byKey.values();
  }

  ofTrigger(triggerId: string): Geofence[] {
    return this.pick(this.byTrigger.get(triggerId));
  }

  ofPlace(placeId: string): Geofence[] {
    return this.pick(this.byPlace.get(placeId));
  }

  ofLayer(layerId: string): Geofence[] {
    return this.pick(this.byLayer.get(layerId));
  }

  /** Follows a diff the engine was given. */
  apply(diff: FenceDiff): void {
    for (const k of diff.remove) this.remove(k);
    for (const f of diff.upsert) {
      this.remove(f.key);
      this.add(f);
    }
  }

  private pick(keys: OneOrSet<string> | undefined): Geofence[] {
    return valuesOf(keys).map((k) => this.byKey.get(k)!);
  }

  private add(f: Geofence): void {
    this.byKey.set(f.key, f);
    link(this.byTrigger, f.triggerId, f.key);
    link(this.byPlace, f.placeId, f.key);
    link(this.byLayer, f.layerId, f.key);
  }

  private remove(key: string): void {
    const f = this.byKey.get(key);
    if (!f) return;
    this.byKey.delete(key);
    unlink(this.byTrigger, f.triggerId, key);
    unlink(this.byPlace, f.placeId, key);
    unlink(this.byLayer, f.layerId, key);
  }
}

/** Id to its geofence keys. Most triggers and places have one: a Set each was 200,000 Sets with 100,000 geofences. */
type KeyIndex = Map<string, OneOrSet<string>>;

function link(index: KeyIndex, id: string, key: string): void {
  index.set(id, withValue(index.get(id), key));
}

function unlink(index: KeyIndex, id: string, key: string): void {
  const keys = withoutValue(index.get(id), key);
  if (keys === undefined) index.delete(id);
  else index.set(id, keys);
}
