// What a route's request schema takes, read once when the route is added, for the checks that look
// at a request's values as sent before ajv validates (and coerces) them: number-fields.ts,
// repeated-fields.ts, null-strings.ts; and how such a check is added to the route.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minLength?: number;
  required?: string[];
}

export type PreValidationHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/** Runs `hook` after the route's own preValidation hooks (its credential guard first: plugins/auth.ts). */
export function appendPreValidation(route: RouteOptions, hook: PreValidationHook): void {
  route.preValidation = [...[route.preValidation ?? []].flat(), hook];
}

/** The JSON types a schema takes, through anyOf/oneOf/allOf (empty: any value, e.g. Type.Unknown()). */
export function typesOf(schema: JsonSchema | undefined, into = new Set<string>()): Set<string> {
  if (!schema) return into;
  for (const t of [schema.type ?? []].flat()) into.add(t);
  for (const sub of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) typesOf(sub, into);
  return into;
}

/** Each top-level property of a request part's schema (through anyOf/oneOf/allOf) and the types it takes. */
export function propertyTypes(schema: JsonSchema | undefined): Map<string, Set<string>> {
  const properties = new Map<string, Set<string>>();
  const collect = (s: JsonSchema | undefined) => {
    if (!s) return;
    for (const [name, sub] of Object.entries(s.properties ?? {})) properties.set(name, typesOf(sub, properties.get(name)));
    for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) collect(branch);
  };
  collect(schema);
  return properties;
}
