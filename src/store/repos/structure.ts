// The repositories of what geofences are made of: layers, places, triggers and layer
// subscriptions. Every read and write names the application, so another application's object is
// exactly a missing one.
import type { Changes } from '../changes.js';
import type { LayerDoc, PlaceDoc, SubscriptionDoc, TriggerDoc } from '../documents.js';
import type { Page, PageRequest } from '../paging.js';

export interface LayerRepo {
  get(appId: string, id: string): Promise<LayerDoc | null>;
  byKey(appId: string, key: string): Promise<LayerDoc | null>;
  /** Oldest first, as every list of layers. */
  forApp(appId: string): Promise<LayerDoc[]>;
  /** Those of `ids` that exist, oldest first. */
  many(appId: string, ids: readonly string[]): Promise<LayerDoc[]>;
  /** The public layers and those of `ids`, oldest first. */
  publicOr(appId: string, ids: readonly string[]): Promise<LayerDoc[]>;
  /** The layers that have a centre (layer/nearby). */
  withCentre(appId: string): Promise<LayerDoc[]>;
  /** The longest `trigger_rate_limit` of any layer of any application, seconds (0: none). */
  longestRateLimitS(): Promise<number>;
  all(): Promise<LayerDoc[]>;
  /** A taken key is a DuplicateKeyError. */
  insert(doc: LayerDoc): Promise<void>;
  update(appId: string, id: string, changes: Changes<LayerDoc>): Promise<LayerDoc | null>;
  remove(appId: string, id: string): Promise<boolean>;
  removeForApp(appId: string): Promise<void>;
}

/** place/list's orders: most visited, by name, newest. */
export type PlaceOrder = 'visits' | 'name' | 'recent';
/** place/list's choice of names: every place, named ones, or unnamed ones only. */
export type PlaceNames = 'all' | 'named' | 'unnamed';

export interface PlaceRepo {
  get(appId: string, id: string): Promise<PlaceDoc | null>;
  /** Keys are unique per layer. */
  byKey(appId: string, layerId: string, key: string): Promise<PlaceDoc | null>;
  /** Oldest first. */
  onLayer(appId: string, layerId: string): Promise<PlaceDoc[]>;
  /** The oldest place of the layer. */
  firstOnLayer(appId: string, layerId: string): Promise<PlaceDoc | null>;
  pageOnLayer(appId: string, layerId: string, names: PlaceNames, order: PlaceOrder, page: PageRequest): Promise<Page<PlaceDoc>>;
  /** Those of `ids` that exist. */
  many(appId: string, ids: readonly string[]): Promise<PlaceDoc[]>;
  forApp(appId: string): Promise<PlaceDoc[]>;
  all(): Promise<PlaceDoc[]>;
  /** A taken key is a DuplicateKeyError. */
  insert(doc: PlaceDoc): Promise<void>;
  update(appId: string, id: string, changes: Changes<PlaceDoc>): Promise<PlaceDoc | null>;
  /** Counts visits (the engine, as users enter). */
  addVisits(appId: string, id: string, n: number): Promise<void>;
  /** How many of them went. */
  removeMany(appId: string, ids: readonly string[]): Promise<number>;
  removeForApp(appId: string): Promise<void>;
}

/** A trigger list's scope: one place's triggers, or one layer's (on the layer itself, on its places, or both). */
export type TriggerScope = { placeId: string } | { layerId: string; on?: 'layer' | 'places' };

export interface TriggerRepo {
  get(appId: string, id: string): Promise<TriggerDoc | null>;
  byKey(appId: string, key: string): Promise<TriggerDoc | null>;
  /** Oldest first. */
  list(appId: string, scope: TriggerScope): Promise<TriggerDoc[]>;
  page(appId: string, scope: TriggerScope, page: PageRequest): Promise<Page<TriggerDoc>>;
  /** The triggers on any of these places. */
  onPlaces(appId: string, placeIds: readonly string[]): Promise<TriggerDoc[]>;
  forApp(appId: string): Promise<TriggerDoc[]>;
  all(): Promise<TriggerDoc[]>;
  /** A taken key is a DuplicateKeyError. */
  insert(doc: TriggerDoc): Promise<void>;
  update(appId: string, id: string, changes: Changes<TriggerDoc>): Promise<TriggerDoc | null>;
  /** A place's triggers follow it to another layer. */
  followPlace(appId: string, placeId: string, layerId: string): Promise<void>;
  removeMany(appId: string, ids: readonly string[]): Promise<number>;
  removeForApp(appId: string): Promise<void>;
}

export interface SubscriptionRepo {
  get(appId: string, layerId: string, userId: string): Promise<SubscriptionDoc | null>;
  /** Oldest first. */
  forUser(appId: string, userId: string): Promise<SubscriptionDoc[]>;
  forLayer(appId: string, layerId: string): Promise<SubscriptionDoc[]>;
  all(): Promise<SubscriptionDoc[]>;
  /** Stores it unless the user is subscribed already: the subscription that stands. */
  add(doc: SubscriptionDoc): Promise<SubscriptionDoc>;
  setSettings(appId: string, layerId: string, userId: string, settings: Record<string, unknown>): Promise<void>;
  remove(appId: string, layerId: string, userId: string): Promise<boolean>;
  removeForUser(appId: string, userId: string): Promise<void>;
  removeForLayer(appId: string, layerId: string): Promise<void>;
  removeForApp(appId: string): Promise<void>;
}

/** A subscription's id: one per (layer, user). */
export const subscriptionId = (layerId: string, userId: string) => `${layerId}:${userId}`;
