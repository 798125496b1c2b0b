// What a stored engine result adds to the service's metrics (docs/operations.md "Metrics"): every
// decision of the machines once, by kind, the firings by event and the gated ones by gate. A few
// counter increments per result, none per point.
import type { GatedFiring } from '../schemas/firing.js';
import type { Metrics } from '../metrics/metrics.js';
import type { RecordChange } from '../../workers/protocol.js';
import type { EngineFiring } from './host-state.js';

export function countResult(m: Metrics, firings: readonly EngineFiring[], gated: readonly GatedFiring[], changes: readonly RecordChange[]): void {
  for (const f of firings) {
    m.decided('fired');
    m.fired(f.triggered_on === 'leave' ? 'leave' : f.delay_s > 0 ? 'dwell' : 'enter');
  }
  for (const g of gated) {
    m.decided('gated');
    m.gatedBy(g.gate);
  }
  // The moves that fired or were gated are counted above, by their effects; a pair let go without
  // a transition (its user left the layer, its place went) is `dropped`.
  for (const c of changes) {
    if (c.transition !== undefined) {
      if (c.transition.outcome === undefined) m.decided('transition');
    } else if (c.record === null) {
      m.decided('dropped');
    }
  }
}
