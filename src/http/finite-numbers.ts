// Numbers in a request must be finite. JSON and form bodies cannot carry Infinity, but ajv's type
// coercion turns the strings "Infinity", "-Infinity" and "1e999" into ±Infinity and then skips
// `minimum`/`maximum` (it only compares finite numbers): a place of radius "Infinity" matched
// every point until a restart wrote it as null, and a trigger_after of "Infinity" broke
// trigger/state. After validation, so only what coercion made is looked at: the top level of the
// body, query and path parameters, and arrays there (the schemas' numbers are all top-level).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { apiError } from '../errors.js';

function check(part: unknown, context: string): void {
  if (part === null || typeof part !== 'object' || Array.isArray(part)) return;
  for (const key in part as Record<string, unknown>) {
    const v = (part as Record<string, unknown>)[key];
    const bad = typeof v === 'number' ? !Number.isFinite(v) : Array.isArray(v) && v.some((x) => typeof x === 'number' && !Number.isFinite(x));
    if (bad) throw apiError('invalid_input', `${context}.${key} must be a finite number`);
  }
}

export function finiteNumbers(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  try {
    check(request.params, 'params');
    check(request.query, 'querystring');
    check(request.body, 'body');
    done();
  } catch (err) {
    done(err as Error);
  }
}
