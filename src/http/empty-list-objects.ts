// PHP's json_encode writes an empty array() as `[]`, so the PHP client sends an empty hash as
// `"extra":[]`. A free-form object field (`extra`, `place_extra`: the `Extra` schema) sent as an
// empty JSON array is read as the empty object it stands for; any other array is still refused.
// The points of location/update (`raw`, `client`) get the same reading in schemas/location-points.ts.
import type { RouteOptions } from 'fastify';
import { appendPreValidation, type JsonSchema, type PreValidationHook } from './schema-types.js';

type FreeFormSchema = JsonSchema & { 'x-storable-keys'?: boolean };

/** The body's top-level fields whose schema is a free-form object (through anyOf/oneOf/allOf). */
function freeFormFields(schema: FreeFormSchema | undefined, into = new Set<string>()): Set<string> {
  if (!schema) return into;
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    if ((sub as FreeFormSchema)['x-storable-keys']) into.add(name);
  }
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) freeFormFields(branch, into);
  return into;
}

/** onRoute hook: gives a route whose body has free-form object fields the reading above. */
export function readEmptyListsAsObjects(route: RouteOptions): void {
  const fields = [...freeFormFields((route.schema as { body?: FreeFormSchema } | undefined)?.body)];
  if (!fields.length) return;
  const hook: PreValidationHook = (request, _reply, done) => {
    const body = request.body as Record<string, unknown> | null | undefined;
    if (body !== null && typeof body === 'object') {
      for (const name of fields) {
        const value = body[name];
        if (Array.isArray(value) && value.length === 0) body[name] = {};
      }
    }
    done();
  };
  appendPreValidation(route, hook);
}
