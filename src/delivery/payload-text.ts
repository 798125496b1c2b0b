// The callback payload as the text stored in the outbox: JSON.stringify(buildCallbackPayload(…)),
// assembled from parts kept per document.
//
// Building a payload object and serialising it took ~15 µs of the main thread per callback
// (bench-firings: 5 µs as text from the kept parts), most of it on the layer, place, trigger and
// user parts, which depend on their document only. Their JSON is kept per document object by a
// PayloadTexts the delivery runtime owns: the documents of firings come from the runtime's cache
// (doc-cache.ts), frozen and shared until they change, so a changed document is a new object. A
// document that is not frozen is serialised every time.
import { isoDate, offsetString, unixSeconds, windowOver } from '../schemas/dates.js';
import type { LayerDoc, PlaceDoc, TriggerDoc, UserDoc } from '../store/documents.js';
import { layerPart, locationRecord, placePart, str, triggerPart, userPart } from './payload.js';
import type { LayerBounds, PayloadInput } from './payload-types.js';

/** Stands for the offset while the user part is serialised once, to be cut out. */
const OFFSET_MARK = '\u0000timezone_offset\u0000';

/** The JSON of payload parts, per document object (a memo: dropped with the documents). */
export class PayloadTexts {
  private readonly layers = new WeakMap<LayerDoc, { bounds: LayerBounds | false; appId: string; text: string }>();
  private readonly places = new WeakMap<PlaceDoc, [string | undefined, string | undefined]>();
  private readonly triggers = new WeakMap<TriggerDoc, string>();
  /** The user part's JSON around its timezone_offset, the one value that depends on the time. */
  private readonly users = new WeakMap<UserDoc, { head: string; tail: string } | false>();

  layer(layer: LayerDoc, bounds: LayerBounds | false, appId: string): string {
    const hit = this.layers.get(layer);
    if (hit && hit.bounds === bounds && hit.appId === appId) return hit.text;
    const text = JSON.stringify(layerPart(layer, bounds, appId));
    if (Object.isFrozen(layer)) this.layers.set(layer, { bounds, appId, text });
    return text;
  }

  place(place: PlaceDoc, active: 0 | 1): string {
    const hit = this.places.get(place);
    if (hit?.[active] !== undefined) return hit[active]!;
    const text = JSON.stringify(placePart(place, active));
    if (Object.isFrozen(place)) {
      const texts = hit ?? [undefined, undefined];
      texts[active] = text;
      this.places.set(place, texts);
    }
    return text;
  }

  trigger(trigger: TriggerDoc): string {
    let text = this.triggers.get(trigger);
    if (text === undefined) {
      text = JSON.stringify(triggerPart(trigger));
      if (Object.isFrozen(trigger)) this.triggers.set(trigger, text);
    }
    return text;
  }

  user(user: UserDoc, tz: string, offset: string): string {
    let parts = this.users.get(user);
    if (parts === undefined && Object.isFrozen(user)) {
      // Cut at the mark; should a field hold the mark itself, this user is serialised every time.
      const pieces = JSON.stringify(userPart(user, tz, OFFSET_MARK)).split(JSON.stringify(OFFSET_MARK));
      parts = pieces.length === 2 ? { head: pieces[0]!, tail: pieces[1]! } : false;
      this.users.set(user, parts);
    }
    // `tz` is the document's own timezone (or UTC), so it is the same on every call for one document.
    if (!parts) return JSON.stringify(userPart(user, tz, offset));
    return parts.head + JSON.stringify(offset) + parts.tail;
  }
}

/** JSON.stringify(buildCallbackPayload(input)), from the parts `texts` keeps per document: the outbox's text. */
export function callbackPayloadText(input: PayloadInput, texts: PayloadTexts = new PayloadTexts()): string {
  const { user, place } = input;
  const tz = user.timezone || 'UTC';
  return (
    `{"layer":${texts.layer(input.layer, input.bounds, input.app._id)}` +
    `,"place":${texts.place(place, windowOver(place, input.at) ? 0 : 1)}` +
    `,"trigger":${texts.trigger(input.trigger)}` +
    `,"triggered_delay":${JSON.stringify(str(input.delay_s))}` +
    `,"triggered_on":${JSON.stringify(input.triggered_on)}` +
    `,"user":${texts.user(user, tz, offsetString(tz, input.at))}` +
    `,"event_id":${JSON.stringify(input.event_id)}` +
    `,"date":${JSON.stringify(isoDate(input.at, tz))}` +
    `,"date_ts":${JSON.stringify(unixSeconds(input.at))}` +
    `,"location":${JSON.stringify(locationRecord(input.location, tz))}}`
  );
}
