// The host's copy of the geofences the engine holds, indexed by trigger, place and layer, and kept
// in step with every diff the host applies. A change to one place or trigger then looks at that
// place's or trigger's geofences only: diffing against every geofence made creating 100,000
// places through the API quadratic, and mapping every geofence to its layer per batch was 38% of
// the main thread with 100,000 geofences.
import type { Geofence } from '../../workers/protocol.js';
import type { FenceDiff } from './geofences.js';

export class HostFences {
  private readonly byKey = new Map<string, Geofence>();
  private readonly byTrigger = new Map<string, Set<string>>();
  private readonly byPlace = new Map<string, Set<string>>();
  private readonly byLayer = new Map<string, Set<string>>();

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

  private pick(keys: Set<string> | undefined): Geofence[] {
    return keys ? [...keys].map((k) => this.byKey.get(k)!) : [];
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

function link(index: Map<string, Set<string>>, id: string, key: string): void {
  let keys = index.get(id);
  if (!keys) index.set(id, (keys = new Set()));
  keys.add(key);
}

function unlink(index: Map<string, Set<string>>, id: string, key: string): void {
  const keys = index.get(id);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0) index.delete(id);
}
