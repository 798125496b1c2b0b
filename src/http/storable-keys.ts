// The `x-storable-keys` schema keyword (on `Extra`, src/schemas/common.ts): a free-form hash whose
// keys no store can hold is refused with a 400 naming the key (src/schemas/field-names.ts says why).
// An ajv plugin for Fastify's validator compiler (its own ajv instance, typed through Fastify).
import type { FastifyServerOptions } from 'fastify';
import { unstorableField } from '../schemas/field-names.js';

type AjvPlugin = Extract<NonNullable<NonNullable<FastifyServerOptions['ajv']>['plugins']>[number], (...args: never[]) => unknown>;

interface Check {
  (schema: boolean, data: unknown, parentSchema?: unknown, cxt?: { instancePath?: string }): boolean;
  errors?: Array<{ keyword: string; message: string; params: Record<string, unknown> }>;
}

export const storableKeysPlugin: AjvPlugin = (ajv) => {
  const validate: Check = (schema, data, _parentSchema, cxt) => {
    if (!schema) return true;
    const name = (cxt?.instancePath ?? '').slice(1).replace(/\//g, '.') || 'value';
    const problem = unstorableField(data, name);
    validate.errors = problem ? [{ keyword: 'x-storable-keys', message: problem, params: {} }] : [];
    return problem === undefined;
  };
  ajv.addKeyword({ keyword: 'x-storable-keys', schemaType: 'boolean', errors: true, validate });
  return ajv;
};
