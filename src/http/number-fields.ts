// Numbers in a request, looked at as sent, before the schema's validation. ajv's type coercion
// (app.ts: coerceTypes 'array') reads a number field's text with Number(): " " became 0, "0x1A" 26,
// " 45 " 45, a JSON null 0 and true 1, and "Infinity" or "1e999" ±Infinity, which then skipped
// minimum/maximum (a place of radius Infinity matched every point). So each route's number fields
// are found once, when the route is added, and a request's values there must be finite numbers or
// plain decimal text (schemas/decimal.ts); null and booleans only where the schema takes them. Text
// Number() cannot read at all is left to the schema (ajv's "must be number", a date's ISO text).
// A route without number fields (location/update, whose body is read by hand) gets no hook.
import type { RouteOptions } from 'fastify';
import { apiError } from '../errors.js';
import { DECIMAL } from '../schemas/decimal.js';
import { appendPreValidation, propertyTypes, type JsonSchema, type PreValidationHook } from './schema-types.js';

interface NumberField {
  name: string;
  /** What to say of a value the field refuses (a date also takes ISO text; a flag true/false). */
  expected: string;
  takesNull: boolean;
  takesBoolean: boolean;
}

const FINITE = 'must be a finite number';
const DECIMAL_TEXT = 'must be a decimal number';

/** The top-level properties of a request part's schema that take a number. */
function numberFields(schema: JsonSchema | undefined): NumberField[] {
  const fields: NumberField[] = [];
  for (const [name, types] of propertyTypes(schema)) {
    if (!types.has('number') && !types.has('integer')) continue;
    const expected = types.has('string') ? 'must be a Unix timestamp or an ISO-8601 date' : types.has('boolean') ? 'must be 1, 0, true or false' : DECIMAL_TEXT;
    fields.push({ name, expected, takesNull: types.has('null'), takesBoolean: types.has('boolean') });
  }
  return fields;
}

/** Why `value` is refused for the field, or undefined. */
function problem(value: unknown, field: NumberField): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : FINITE;
  if (typeof value === 'string') {
    // "" is not coerced by ajv (refused, or null where the field is clearable).
    if (value === '') return undefined;
    if (DECIMAL.test(value)) return Number.isFinite(Number(value)) ? undefined : FINITE;
    const n = Number(value);
    if (Number.isNaN(n)) return undefined;
    return Number.isFinite(n) ? field.expected : FINITE;
  }
  const wrongType = field.expected === DECIMAL_TEXT ? 'must be a number' : field.expected;
  if (value === null) return field.takesNull ? undefined : wrongType;
  if (typeof value === 'boolean') return field.takesBoolean ? undefined : wrongType;
  return undefined;
}

function check(part: unknown, fields: readonly NumberField[], context: string): void {
  if (part === null || typeof part !== 'object') return;
  for (const field of fields) {
    const value = (part as Record<string, unknown>)[field.name];
    if (value === undefined) continue;
    // coerceTypes 'array' reads a one-item array as its item.
    const bad = Array.isArray(value) ? value.map((v) => problem(v, field)).find((p) => p) : problem(value, field);
    if (bad) throw apiError('invalid_input', `${context}.${field.name} ${bad}`);
  }
}

/** onRoute hook: gives a route with number fields the preValidation check of them. */
export function checkNumberFields(route: RouteOptions): void {
  const schema = route.schema as Record<string, JsonSchema | undefined> | undefined;
  const body = numberFields(schema?.body);
  const query = numberFields(schema?.querystring ?? schema?.query);
  const params = numberFields(schema?.params);
  if (!body.length && !query.length && !params.length) return;
  const hook: PreValidationHook = (request, _reply, done) => {
    try {
      check(request.params, params, 'params');
      check(request.query, query, 'querystring');
      check(request.body, body, 'body');
      done();
    } catch (err) {
      done(err as Error);
    }
  };
  appendPreValidation(route, hook);
}
