// Public surface of the decide stage: what workers import.
export * from './types.js';
export { geofenceMachine, gateOf } from './geofence-machine.js';
export { runMachine, effectsFromActions, snapshotFromRecord, recordFromSnapshot } from './machine-step.js';
export type { GeofenceSnapshot, PairContext } from './geofence-machine.js';
export { step, needsMachine, OPEN_GATE } from './pair-step.js';
export * from './timeline.js';
