// What arrived from the service, reduced to what the comparison needs: one record per callback
// delivery or stored message, with the identity fields, the firing time and anything wrong with the
// payload that can be seen without the oracle (signature, ids, missing fields).

export interface ReceivedEvent {
  source: 'callback' | 'message';
  /** event_id of a callback, message_id of a message. */
  id: string;
  /** Deliveries seen with this id (callbacks: every attempt answered 2xx or not). */
  deliveries: number;
  userId?: string;
  triggerId?: string;
  placeId?: string;
  layerId?: string;
  triggerType?: string;
  triggerOn?: string;
  triggeredOn?: string;
  triggeredDelay?: number;
  placeGeometry?: { lat: number; lng: number; radius: number; geometry?: unknown; width?: unknown };
  /** Firing time, epoch ms, and the precision of the field it came from. */
  t?: number;
  precisionMs: number;
  /** Wall-clock ms of the first delivery we accepted (callbacks, live stream). */
  arrivalAt?: number;
  location?: { lat: number; lng: number };
  /** Receiver path the callback was POSTed to. */
  path?: string;
  problems: string[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** The firing time from `date` (ISO, maybe with milliseconds) or else `date_ts` (Unix seconds). */
export function firingTime(body: Record<string, unknown>): { t?: number; precisionMs: number } {
  const date = typeof body.date === 'string' ? body.date : undefined;
  if (date) {
    const t = Date.parse(date);
    if (Number.isFinite(t)) return { t, precisionMs: /:\d\d\.\d+/.test(date) ? 1 : 1000 };
  }
  const ts = num(body.date_ts);
  if (ts !== undefined) return { t: Math.round(ts * 1000), precisionMs: Number.isInteger(ts) ? 1000 : 1 };
  return { precisionMs: 1000 };
}

/** A callback body (reference §5 plus event_id, date, date_ts, location). */
export function parseCallback(body: unknown, headerId: string | undefined, path: string, arrivalAt: number): ReceivedEvent {
  const problems: string[] = [];
  const b = isObj(body) ? body : {};
  if (!isObj(body)) problems.push('body is not a JSON object');
  const user = isObj(b.user) ? b.user : {};
  const trigger = isObj(b.trigger) ? b.trigger : {};
  const place = isObj(b.place) ? b.place : {};
  const layer = isObj(b.layer) ? b.layer : {};
  const eventId = str(b.event_id);
  if (!eventId) problems.push('no event_id');
  else if (headerId !== undefined && eventId !== headerId) problems.push(`event_id ${eventId} differs from webhook-id ${headerId}`);
  const ev: ReceivedEvent = {
    source: 'callback', id: eventId ?? headerId ?? `anonymous-${arrivalAt}-${Math.random()}`, deliveries: 1,
    userId: str(user.user_id), triggerId: str(trigger.trigger_id), placeId: str(place.place_id), layerId: str(layer.layer_id),
    triggerType: str(trigger.type), triggerOn: str(trigger.trigger_on), triggeredOn: str(b.triggered_on),
    triggeredDelay: num(b.triggered_delay), arrivalAt, path, problems, ...firingTime(b),
  };
  for (const [name, v] of [['user.user_id', ev.userId], ['trigger.trigger_id', ev.triggerId], ['place.place_id', ev.placeId], ['triggered_on', ev.triggeredOn]] as const) {
    if (!v) problems.push(`no ${name}`);
  }
  if (ev.t === undefined) problems.push('no date or date_ts');
  const lat = num(place.latitude), lng = num(place.longitude), radius = num(place.radius);
  if (lat !== undefined && lng !== undefined && radius !== undefined) {
    ev.placeGeometry = { lat, lng, radius, ...(place.geometry !== undefined ? { geometry: place.geometry, width: place.width } : {}) };
  }
  const loc = isObj(b.location) && isObj(b.location.location) && isObj(b.location.location.position) ? b.location.location.position : undefined;
  const llat = num(loc?.latitude), llng = num(loc?.longitude);
  if (llat !== undefined && llng !== undefined) ev.location = { lat: llat, lng: llng };
  return ev;
}

/** One message/list item (or a live-stream frame's message). */
export function parseMessage(item: unknown, userId: string): ReceivedEvent | undefined {
  if (!isObj(item)) return undefined;
  const trigger = isObj(item.trigger) ? item.trigger : {};
  const place = isObj(item.place) ? item.place : {};
  const triggerId = str(item.trigger_id) ?? str(trigger.trigger_id);
  // message/send messages carry no trigger: not events of a geofence.
  if (!triggerId) return undefined;
  const id = str(item.message_id) ?? str(item.id) ?? `${userId}-${triggerId}-${str(item.date_ts) ?? ''}`;
  const ev: ReceivedEvent = {
    source: 'message', id, deliveries: 1, userId: str(item.user_id) ?? userId, triggerId,
    placeId: str(item.place_id) ?? str(place.place_id), problems: [], ...firingTime(item),
  };
  if (ev.t === undefined) ev.problems.push('no date or date_ts');
  if (!ev.placeId) ev.problems.push('no place_id');
  return ev;
}

/** Several deliveries of one id become one event; the extra deliveries are retries. */
export function mergeDeliveries(events: ReceivedEvent[]): { events: ReceivedEvent[]; retries: number } {
  const byId = new Map<string, ReceivedEvent>();
  let retries = 0;
  for (const ev of events) {
    const key = `${ev.source}:${ev.id}`;
    const prev = byId.get(key);
    if (!prev) {
      byId.set(key, { ...ev, problems: [...ev.problems] });
      continue;
    }
    retries += ev.deliveries;
    prev.deliveries += ev.deliveries;
    if (ev.arrivalAt !== undefined && (prev.arrivalAt === undefined || ev.arrivalAt < prev.arrivalAt)) prev.arrivalAt = ev.arrivalAt;
    if (prev.userId !== ev.userId || prev.triggerId !== ev.triggerId || prev.placeId !== ev.placeId || prev.t !== ev.t) {
      prev.problems.push('a retry with the same event_id carried a different user, trigger, place or time');
    }
  }
  return { events: [...byId.values()], retries };
}
