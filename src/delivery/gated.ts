// Firings the gates stopped (machines/README.md "gated"), stored as firings marked with their gate
// and without delivery: nothing was sent for them. trigger/history shows them only to clients that
// ask (include_gated=1).
import type { FiringGate, GatedFiring } from '../schemas/firing.js';
import type { TriggerDoc } from '../store/documents.js';
import type { NewFiring } from '../store/firings.js';
import type { DeliveryRuntime } from './runtime.js';

/**
 * The firings of gated ones (`created_at` is the caller's to set); one whose trigger is gone meanwhile has none. A closed date window is
 * the trigger's own once its date range is over (trigger/info says `active: 0`): that is
 * `trigger_inactive`, told apart here from the engine's merged window of trigger and place.
 */
export async function gatedFirings(rt: Pick<DeliveryRuntime, 'docs'>, gated: readonly GatedFiring[]): Promise<NewFiring[]> {
  if (gated.length === 0) return [];
  const triggers = await Promise.all(gated.map((g) => rt.docs.trigger(g.app_id, g.trigger_id)));
  const rows: NewFiring[] = [];
  gated.forEach((g, i) => {
    const t = triggers[i];
    if (!t) return;
    const row: NewFiring = {
      event_id: g.event_id, app_id: g.app_id, user_id: g.user_id, trigger_id: g.trigger_id, place_id: g.place_id, layer_id: g.layer_id,
      type: t.type, triggered_on: g.triggered_on, delay_s: g.delay_s, date: g.at, gate: gateOf(g, t), created_at: 0,
    };
    if (g.received_at !== undefined) row.received_at = g.received_at;
    rows.push(row);
  });
  return rows;
}

function gateOf(g: GatedFiring, t: TriggerDoc): FiringGate {
  if (g.gate === 'date_window' && typeof t.date_to === 'number' && g.at > t.date_to) return 'trigger_inactive';
  return g.gate;
}
