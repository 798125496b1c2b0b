// A field sent twice (`?count=1&count=2`, a form's `name=a&name=b`) arrives as a list, which ajv then
// refuses as "must be integer" or "must be string", a message that hides the mistake. Where the
// schema takes a single value, such a list is refused first, saying the field was given more than
// once. Only the query string and form bodies: in JSON a list is written as one, and ajv's "must be
// string" says what is wrong with it. (A one-item list, `name[]=a` in a form, ajv reads as its item.)
import type { FastifyRequest, RouteOptions } from 'fastify';
import { apiError } from '../errors.js';
import { appendPreValidation, propertyTypes, type JsonSchema, type PreValidationHook } from './schema-types.js';

/** The top-level fields that take one value: a schema that names types, none of them 'array'. */
function singleValueFields(schema: JsonSchema | undefined): string[] {
  return [...propertyTypes(schema)].filter(([, types]) => types.size > 0 && !types.has('array')).map(([name]) => name);
}

function check(part: unknown, fields: readonly string[], context: string): void {
  if (part === null || typeof part !== 'object') return;
  for (const name of fields) {
    const value = (part as Record<string, unknown>)[name];
    if (Array.isArray(value) && value.length > 1) throw apiError('invalid_input', `${context}.${name} was given more than once`);
  }
}

const isForm = (request: FastifyRequest) => /^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '');

/** onRoute hook: gives a route with single-value query or body fields the preValidation check of them. */
export function checkRepeatedFields(route: RouteOptions): void {
  const schema = route.schema as Record<string, JsonSchema | undefined> | undefined;
  const query = singleValueFields(schema?.querystring ?? schema?.query);
  const body = singleValueFields(schema?.body);
  if (!query.length && !body.length) return;
  const hook: PreValidationHook = (request, _reply, done) => {
    try {
      check(request.query, query, 'querystring');
      if (isForm(request)) check(request.body, body, 'body');
      done();
    } catch (err) {
      done(err as Error);
    }
  };
  appendPreValidation(route, hook);
}
