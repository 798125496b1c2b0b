// A JSON null where the schema takes only a non-empty string (a key, a name, an id): ajv's type
// coercion (app.ts: coerceTypes) turns null into "" before checking, so `{"key":null}` was refused
// as "must NOT have fewer than 1 characters", a message about a short string nobody sent. Such a
// null is refused first, saying so, and on an update what to send instead to keep the value.
// Only JSON bodies: a form or query string cannot carry a null.
import type { RouteOptions } from 'fastify';
import { apiError } from '../errors.js';
import { appendPreValidation, type JsonSchema, type PreValidationHook } from './schema-types.js';

interface NullField {
  name: string;
  message: string;
}

/** The body's top-level fields that take a string of at least one character and nothing else. */
function nonEmptyStringFields(schema: JsonSchema | undefined, isUpdate: boolean): NullField[] {
  const fields: NullField[] = [];
  for (const [name, s] of Object.entries(schema?.properties ?? {})) {
    if (s.type !== 'string' || !((s.minLength ?? 0) >= 1)) continue;
    const what = `body.${name} must be a non-empty string, not null`;
    const hint = isUpdate ? `to keep the current ${name}, leave the field out` : 'to send none, leave the field out';
    fields.push({ name, message: schema?.required?.includes(name) ? what : `${what} (null is not a ${name}; ${hint})` });
  }
  return fields;
}

/** onRoute hook: gives a route whose body has such fields the preValidation check of them. */
export function checkNullStrings(route: RouteOptions): void {
  const schema = route.schema as { body?: JsonSchema } | undefined;
  const fields = nonEmptyStringFields(schema?.body, /\/update(\/|$)/.test(route.url));
  if (!fields.length) return;
  const hook: PreValidationHook = (request, _reply, done) => {
    const body = request.body as Record<string, unknown> | null | undefined;
    if (body !== null && typeof body === 'object') {
      for (const f of fields) {
        if (body[f.name] === null) return done(apiError('invalid_input', f.message));
      }
    }
    done();
  };
  appendPreValidation(route, hook);
}
