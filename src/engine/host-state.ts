// What the parts of the engine host share (host.ts wires them): the store-side context, the ports
// through which it reaches delivery and services without importing them, the engine, and the
// host's memory of users and the geofences.
import type { Firing, GatedFiring } from '../schemas/firing.js';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Change } from '../services/changes.js';
import type { ApplicationDoc, UserDoc } from '../store/documents.js';
import type { Store } from '../store/store.js';
import type { Engine } from './engine.js';
import type { HostFences } from './host-fences.js';
import type { MachineStates } from './state-store.js';
import type { TimelineWriter } from './timeline.js';

/** The part of the service context the engine uses (a ServiceContext is one). */
export interface EngineContext {
  store: Store;
  config: Config;
  changes: { on(listener: (change: Change) => void | Promise<void>): void };
  now: () => number;
  /** The service's instruments: the persist step counts what it stored. */
  metrics: Metrics;
}

/** A firing as the engine hands it to delivery. */
export type EngineFiring = Firing;

/** A location/update's body, read in the shards: JSON text, or a form body's value (services/context.ts PointsInput). */
export type PointsInput = { text: string; timeZone?: string } | { value: unknown; timeZone?: string };

/**
 * What the host needs from the layers above and beside it, passed in by the app (src/app.ts), so
 * that the engine imports neither delivery nor services.
 */
export interface EnginePorts {
  /** Stores firings and their deliveries, and the gated firings' history rows, idempotent by event id (delivery/firings.ts). */
  recordFirings(firings: EngineFiring[], gated?: GatedFiring[]): Promise<void>;
  /** The longest `trigger_rate_limit` of any layer, seconds (services/layers.ts). */
  longestLayerRateLimitS(): Promise<number>;
}

export interface KnownUser {
  appId: string;
  timezone: string;
}

/** A location update waiting for its batch. */
export interface Pending {
  userId: string;
  app: ApplicationDoc;
  user: UserDoc;
  input: PointsInput;
  now: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface HostState {
  readonly ctx: EngineContext;
  readonly ports: EnginePorts;
  readonly engine: Engine;
  readonly states: MachineStates;
  readonly users: Map<string, KnownUser>;
  /** The engine's geofences by trigger, place and layer (set at start, follows every diff). */
  fences: HostFences;
  /** Writes the decision timeline; null when it is not recorded (TIMELINE=false). */
  readonly timeline: TimelineWriter | null;
}

export const settled = () => undefined;
