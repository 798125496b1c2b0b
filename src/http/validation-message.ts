// One message for a request the schema refuses, naming the field and what it takes. ajv (app.ts:
// verbose, so each error carries the schema it failed) stops at the first failing keyword; when that
// is a union (anyOf), the errors of every branch come first and the anyOf's own last, so the first
// error alone spoke for whichever branch came first: "25:00" as a time_from was said to need to be
// null. The branch that took the value's type and refused it for something else (a pattern, a bound)
// is the one that says what is wrong; when no branch took the type, every alternative is listed.
import type { FastifySchemaValidationError } from 'fastify';

interface Schema {
  type?: string | string[];
  description?: string;
  anyOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
}

type ValidationError = FastifySchemaValidationError & { schema?: unknown; parentSchema?: Schema };

export interface ValidationMessage {
  /** The field as the request names it: `body.time_from`, or the part itself. */
  field: string;
  /** What the field takes or what is wrong with it, e.g. "must be null or a string". */
  text: string;
  /** Whether the field was missing (missing_input) rather than wrong (invalid_input). */
  missing: boolean;
}

const TYPE_NAMES: Record<string, string> = {
  null: 'null', string: 'a string', number: 'a number', integer: 'an integer', boolean: 'true or false', object: 'an object', array: 'a list',
};

/** What a schema takes, in words: its description when it has one. */
function expectation(s: Schema): string {
  if (s.description) return s.description;
  if (s.anyOf) return s.anyOf.map(expectation).join(' or ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  return [s.type ?? []].flat().map((t) => TYPE_NAMES[t] ?? t).join(' or ') || 'valid';
}

/** Keywords that only say the value is not this branch's kind: they tell nothing when another branch fits. */
const KIND = new Set(['type', 'anyOf', 'const', 'enum']);

const fieldOf = (context: string, instancePath: string) => context + (instancePath ? '.' + instancePath.slice(1).replace(/\//g, '.') : '');

/** A pattern's own text means nothing to a client: the schema's description says what it stands for. */
const messageOf = (e: ValidationError) =>
  e.keyword === 'pattern' && e.parentSchema?.description ? `must be ${e.parentSchema.description}` : (e.message ?? 'is invalid');

function unionMessage(union: ValidationError, errors: readonly ValidationError[], context: string): ValidationMessage {
  const branches = Array.isArray(union.schema) ? (union.schema as Schema[]) : [];
  const field = fieldOf(context, union.instancePath);
  if (union.parentSchema?.description) return { field, text: `must be ${union.parentSchema.description}`, missing: false };
  const telling = errors.find((e) => e !== union && e.schemaPath.startsWith(union.schemaPath + '/') && !KIND.has(e.keyword));
  if (!telling) return { field, text: `must be ${branches.map(expectation).join(' or ')}`, missing: false };
  if (telling.keyword !== 'pattern' || !telling.parentSchema?.description) return { field: fieldOf(context, telling.instancePath), text: messageOf(telling), missing: false };
  // "must be a time of day … or null": the fitting branch's description first, then the others.
  const index = Number(telling.schemaPath.slice(union.schemaPath.length + 1).split('/')[0]);
  const others = branches.filter((_, i) => i !== index).map(expectation);
  return { field, text: `must be ${[telling.parentSchema.description, ...others].join(' or ')}`, missing: false };
}

export function validationMessage(errors: readonly ValidationError[], context: string): ValidationMessage {
  const first = errors[0];
  if (!first) return { field: context, text: 'is invalid', missing: false };
  if (first.keyword === 'required') {
    return { field: `${context}.${String((first.params as { missingProperty?: string }).missingProperty)}`, text: 'is required', missing: true };
  }
  // The last error is the keyword that failed; a union's is last, after its branches'.
  const last = errors[errors.length - 1]!;
  if (last.keyword === 'anyOf') return unionMessage(last, errors, context);
  return { field: fieldOf(context, first.instancePath), text: messageOf(first), missing: false };
}
