// Keeps the shards in step with the change feed: a trigger, place or layer saved or removed becomes
// a geofence diff for every shard; a subscription or a timezone becomes the user's membership; a
// deleted user leaves the engine. Each change runs alone (Stages.exclusive).
import type { Change } from '../services/changes.js';
import type { LayerDoc, PlaceDoc, TriggerDoc } from '../store/documents.js';
import type { ApplyResult } from './engine.js';
import { onLayerDeleted, onLayerSaved, onPlaceDeleted, onPlaceSaved, onTriggerDeleted, onTriggerSaved, type FenceDiff } from './geofences.js';
import type { HostState } from './host-state.js';

export class FenceSync {
  /**
   * @param persist stores the result of an engine call made outside the pipeline
   * @param forgetUser drops what the host remembers of a deleted user
   */
  constructor(
    private readonly s: HostState,
    private readonly persist: (res: ApplyResult) => Promise<void>,
    private readonly forgetUser: (userId: string) => void,
  ) {}

  async onChange(change: Change): Promise<void> {
    const { store } = this.s.ctx;
    const fences = this.s.fences;
    let diff: FenceDiff | undefined;
    switch (change.kind) {
      case 'trigger': {
        const t = change.doc;
        if (change.op === 'removed') {
          diff = onTriggerDeleted(t._id, fences.ofTrigger(t._id));
          await this.s.states.removeTrigger(t._id);
        } else {
          const places = t.on_layer ? await store.places.onLayer(t.app_id, t.layer_id) : await this.placesById(t);
          diff = onTriggerSaved(t, places, await this.layerMap(t.app_id, places), fences.ofTrigger(t._id));
        }
        break;
      }
      case 'place': {
        const p = change.doc;
        if (change.op === 'removed') {
          diff = onPlaceDeleted(p._id, fences.ofPlace(p._id));
          await this.s.states.removePlace(p._id);
        } else {
          // Two indexed reads, not one `$or`: the embedded store matched that against every trigger
          // of the application, for every place saved (1.7 of 6 s of main thread in bench:api).
          const [own, layerWide] = await Promise.all([
            store.triggers.list(p.app_id, { placeId: p._id }),
            store.triggers.list(p.app_id, { layerId: p.layer_id, on: 'layer' }),
          ]);
          const triggers = [...own, ...layerWide.filter((t) => t.place_id !== p._id)];
          diff = onPlaceSaved(p, triggers, await this.layerMap(p.app_id, [p]), fences.ofPlace(p._id));
        }
        break;
      }
      case 'layer':
        diff = change.op === 'removed'
          ? onLayerDeleted(change.doc._id, fences.ofLayer(change.doc._id))
          : onLayerSaved(change.doc, fences.ofLayer(change.doc._id));
        break;
      case 'subscription':
        await this.refreshMembership(change.appId, change.userId);
        return;
      case 'user': {
        await this.persist(await this.s.engine.setMembership(change.doc._id, [], change.doc.timezone));
        this.forgetUser(change.doc._id);
        await this.s.states.removeUser(change.doc._id);
        await this.s.timeline?.forgetUser(change.doc._id);
        return;
      }
    }
    if (!diff || (diff.upsert.length === 0 && diff.remove.length === 0)) return;
    const relayered = this.relayered(diff);
    fences.apply(diff); // as the engine's own copy: updated before the shards are
    await this.persist(await this.s.engine.applyFenceDiff(diff));
    // A place moved to another layer: its pairs now belong to that layer's members only. Users
    // who are not members lose their records there without firing, as on unsubscribing.
    const users = new Map<string, string>();
    for (const f of relayered) {
      for (const st of await this.s.states.usersOf(f.triggerId, f.placeId)) users.set(st.user_id, st.app_id);
    }
    for (const [userId, appId] of users) await this.refreshMembership(appId, userId);
  }

  /** Geofences of the diff that exist already under another layer. */
  private relayered(diff: FenceDiff): FenceDiff['upsert'] {
    if (diff.upsert.length === 0) return [];
    return diff.upsert.filter((n) => {
      const f = this.s.fences.get(n.key);
      return f !== undefined && f.layerId !== n.layerId;
    });
  }

  /** The user's layers and timezone from the store, handed to their shard (records outside them go). */
  private async refreshMembership(appId: string, userId: string): Promise<void> {
    const { store } = this.s.ctx;
    const user = await store.users.get(appId, userId);
    const app = await store.applications.get(appId);
    if (!user || !app) return;
    this.s.users.set(user._id, { appId: app._id, timezone: user.timezone });
    const subs = await store.subscriptions.forUser(app._id, user._id);
    await this.persist(await this.s.engine.setMembership(user._id, [app.default_layer_id, ...subs.map((sub) => sub.layer_id)], user.timezone));
  }

  private async layerMap(appId: string, places: readonly PlaceDoc[]): Promise<Map<string, LayerDoc>> {
    const ids = [...new Set(places.map((p) => p.layer_id))];
    const layers = await this.s.ctx.store.layers.many(appId, ids);
    return new Map(layers.map((l) => [l._id, l]));
  }

  private async placesById(t: TriggerDoc): Promise<PlaceDoc[]> {
    if (!t.place_id) return [];
    const p = await this.s.ctx.store.places.get(t.app_id, t.place_id);
    return p ? [p] : [];
  }
}
