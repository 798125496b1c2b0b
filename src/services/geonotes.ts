// Geonotes (reference §4.2): a one-time message left at a place for a user. Each note is realised
// as a one-time message trigger on a place of the user's own "Geonotes" layer, a private layer only
// that user is subscribed to, so the trigger engine fires it for them alone, once, with nothing of
// the engine special to geonotes. A note is delivered once its trigger's message exists.
import { apiError, notFound } from '../errors.js';
import { plainDate, unixSeconds } from '../schemas/dates.js';
import type { GeonoteDoc, PlaceDoc } from '../store/documents.js';
import { newId } from '../store/ids.js';
import type { ServiceContext } from './context.js';
import { placeObject } from './geo-objects.js';
import { createLayer, deleteLayer, requireVisibleLayer } from './layers.js';
import { requirePlace } from './places.js';
import { subscribeUser } from './subscriptions.js';
import { createTrigger } from './triggers.js';
import type { Viewer } from './viewer.js';
import type { WindowInput } from './validity-window.js';

export interface GeonoteInput extends Pick<WindowInput, 'date_from' | 'date_to'> {
  text: string;
  place_id?: string;
  place_name?: string;
  latitude?: number;
  longitude?: number;
  radius?: number;
  span_longitude?: number;
  delay_minutes?: number;
  from_name?: string;
  from_email?: string;
}

/** The key of a user's Geonotes layer: layer keys are per application, so it names the user. */
export const geonoteLayerKey = (userId: string) => `geonotes:${userId}`;

/** The user's Geonotes layer, created (private) and subscribed on first use. */
async function geonoteLayer(ctx: ServiceContext, appId: string, userId: string): Promise<string> {
  const { body } = await createLayer(ctx, appId, {
    name: 'Geonotes', key: geonoteLayerKey(userId), description: 'Geonotes left for one user: their triggers fire for this user only',
  });
  await subscribeUser(ctx, appId, body.layer_id, userId);
  return body.layer_id;
}

/** The place the note is left at, as inline place fields of trigger/create. */
async function notePlace(ctx: ServiceContext, viewer: Viewer, input: GeonoteInput) {
  if (input.place_id !== undefined) {
    if (input.place_name !== undefined) throw apiError('invalid_input', 'place_name and place_id cannot be combined: place_name names a new place');
    const origin = await requirePlace(ctx, viewer.appId, input.place_id);
    await requireVisibleLayer(ctx, viewer, origin.layer_id).catch(() => { throw notFound('Place'); });
    return { origin, fields: { latitude: origin.latitude, longitude: origin.longitude, radius: origin.radius, place_name: origin.name } };
  }
  if (input.latitude === undefined || input.longitude === undefined) {
    throw apiError('missing_input', 'Give place_id, or latitude and longitude with radius or span_longitude');
  }
  if (input.radius === undefined && input.span_longitude === undefined) throw apiError('missing_input', 'Radius in meters is required');
  return {
    origin: undefined,
    fields: { latitude: input.latitude, longitude: input.longitude, radius: input.radius, span_longitude: input.span_longitude, place_name: input.place_name },
  };
}

/** geonote/create: for the caller (a user token), answered as the reference's three forms. */
export async function createGeonote(ctx: ServiceContext, viewer: Viewer & { userId: string }, input: GeonoteInput) {
  const text = input.text.trim();
  if (text === '') throw apiError('missing_input', 'text is required');
  const { origin, fields } = await notePlace(ctx, viewer, input);
  const layerId = await geonoteLayer(ctx, viewer.appId, viewer.userId);
  const { body: trigger } = await createTrigger(ctx, viewer.appId, layerId, {
    type: 'message', text, one_time: 1, trigger_on: 'enter', place_layer_id: layerId, ...fields,
    trigger_after: input.delay_minutes ? Math.round(input.delay_minutes * 60) : 0,
    date_from: input.date_from, date_to: input.date_to,
  }, viewer.timeZone);
  const note: GeonoteDoc = {
    _id: newId(), app_id: viewer.appId, user_id: viewer.userId, trigger_id: trigger.trigger_id, place_id: trigger.place!.place_id,
    text, from: input.from_email ?? '[me]', date_created: ctx.now(),
    ...(origin ? { origin_place_id: origin._id } : {}),
    ...(input.from_name !== undefined ? { from_name: input.from_name } : {}),
  };
  await ctx.store.geonotes.insert(note);
  if (input.place_id !== undefined) return { result: 'ok' as const, geonote_id: note._id };
  if (input.place_name !== undefined) return { result: 'ok' as const, geonote_id: note._id, place_id: trigger.place!.place_id };
  if (input.radius === undefined) return { result: 'ok' as const, geonote_id: note._id, radius: trigger.place!.radius };
  return { result: 'ok' as const, geonote_id: note._id };
}

interface NoteView {
  note: GeonoteDoc;
  place: PlaceDoc;
}

/** The user's notes whose place still exists, each with its delivery stamped once it is found. */
async function notesOf(ctx: ServiceContext, appId: string, userId: string, onlyId?: string): Promise<NoteView[]> {
  const notes = (await ctx.store.geonotes.forUser(appId, userId)).filter((n) => onlyId === undefined || n._id === onlyId);
  if (notes.length === 0) return [];
  const places = await ctx.store.places.many(appId, notes.map((n) => n.place_id));
  const placeById = new Map(places.map((p) => [p._id, p]));
  const waiting = notes.filter((n) => n.date_triggered === undefined).map((n) => n.trigger_id);
  if (waiting.length > 0) {
    const firstBy = await ctx.store.messages.firstByTrigger(appId, userId, waiting);
    for (const n of notes) {
      const at = n.date_triggered === undefined ? firstBy.get(n.trigger_id) : undefined;
      if (at === undefined) continue;
      n.date_triggered = at;
      await ctx.store.geonotes.markTriggered(appId, n._id, at);
    }
  }
  return notes.flatMap((note) => (placeById.has(note.place_id) ? [{ note, place: placeById.get(note.place_id)! }] : []));
}

function noteItem({ note, place }: NoteView, timeZone: string) {
  return {
    geonote_id: note._id,
    date_created: plainDate(note.date_created, timeZone),
    date_created_ts: unixSeconds(note.date_created),
    text: note.text,
    latitude: place.latitude,
    longitude: place.longitude,
    radius: place.radius,
    // No reverse geocoding (as places): there is no intersection to name.
    intersection: '',
    place_id: note.origin_place_id ?? place._id,
    place_name: place.name,
    from: note.from,
    ...(note.date_triggered !== undefined
      ? { date_triggered: plainDate(note.date_triggered, timeZone), date_triggered_ts: unixSeconds(note.date_triggered) }
      : {}),
  };
}

/** geonote/list_set: the notes not delivered yet. */
export async function listSetGeonotes(ctx: ServiceContext, viewer: Viewer & { userId: string }) {
  const notes = await notesOf(ctx, viewer.appId, viewer.userId);
  return { geonotes: notes.filter((n) => n.note.date_triggered === undefined).map((n) => noteItem(n, viewer.timeZone)) };
}

/** geonote/list_recent: the notes delivered, most recently delivered first. */
export async function listRecentGeonotes(ctx: ServiceContext, viewer: Viewer & { userId: string }) {
  const notes = (await notesOf(ctx, viewer.appId, viewer.userId)).filter((n) => n.note.date_triggered !== undefined);
  notes.sort((a, b) => b.note.date_triggered! - a.note.date_triggered!);
  return { geonotes: notes.map((n) => noteItem(n, viewer.timeZone)) };
}

/** geonote/info/:id: one of the caller's notes with its place. */
export async function geonoteInfo(ctx: ServiceContext, viewer: Viewer & { userId: string }, id: string) {
  const [view] = await notesOf(ctx, viewer.appId, viewer.userId, id);
  if (!view) throw notFound('Geonote');
  const p = placeObject(view.place, ctx.now(), viewer.timeZone);
  const none = { name: '', id: '' };
  return {
    ...noteItem(view, viewer.timeZone),
    place: {
      place_id: p.place_id, name: p.name, display_name: p.display_name, latitude: p.latitude, longitude: p.longitude, radius: p.radius,
      locality: none, region: none, country: none, time_from: p.time_from, time_to: p.time_to, extra: p.extra, visits: p.visits,
    },
  };
}

/** A deleted user's Geonotes layer (with its places and triggers) and notes go with them. */
export async function removeUserGeonotes(ctx: ServiceContext, appId: string, userId: string): Promise<void> {
  const layer = await ctx.store.layers.byKey(appId, geonoteLayerKey(userId));
  if (layer) await deleteLayer(ctx, appId, layer._id);
  await ctx.store.geonotes.removeForUser(appId, userId);
}
