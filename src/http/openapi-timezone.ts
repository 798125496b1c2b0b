// The OpenAPI document declares the `Timezone` request header (reference §1) on every /1/ method.
// It is not in the routes' schemas on purpose: a schema would validate it, and a malformed header
// is ignored, never refused (services/request-zone.ts).

const TIMEZONE_PARAMETER = {
  name: 'Timezone',
  in: 'header',
  required: false,
  schema: { type: 'string', maxLength: 200 },
  example: '2011-03-26T15:36:00-07:00;;America/Los_Angeles',
  description:
    "The request's time zone, as the Geoloqi SDKs send it: a date with its offset, then `;;` and an IANA zone name. " +
    "Dates without an offset are read in it and dates are shown in it; without it, the acting user's profile zone, else UTC. " +
    'A name alone, or a date with an offset alone (a fixed offset), also works; anything else is ignored.',
};

type Operation = { parameters?: unknown[] };
/** An OpenAPI 3 document, as far as this reads it (the swagger plugin's own types are per version). */
type OpenApiLike = { paths?: object; components?: object };

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The document with the header as a shared parameter, referenced by every operation under /1/. */
export function withTimezoneHeader<T extends OpenApiLike>(doc: T): T {
  const components = ((doc as { components?: Record<string, unknown> }).components ??= {});
  components.parameters = { ...(components.parameters as Record<string, unknown> | undefined), Timezone: TIMEZONE_PARAMETER };
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, unknown> | undefined>)) {
    if (!path.startsWith('/1/') || !item) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const op = operation as Operation;
      (op.parameters ??= []).push({ $ref: '#/components/parameters/Timezone' });
    }
  }
  return doc;
}
