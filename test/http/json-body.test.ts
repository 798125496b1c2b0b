// JSON bodies: prototype-poisoning keys are dropped however they are written, while ordinary
// bodies take the plain (fast) JSON.parse.
import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { parseJsonBody } from '../../src/http/error-handler.js';

function parse(text: string): unknown {
  let out: unknown;
  parseJsonBody({} as FastifyRequest, text, (err, value) => {
    if (err) throw err;
    out = value;
  });
  return out;
}

describe('parseJsonBody', () => {
  it('drops __proto__ and constructor keys, also when written with \\u escapes', () => {
    for (const text of [
      '{"a":1,"__proto__":{"polluted":1}}',
      '{"a":1,"\\u005f_proto__":{"polluted":1}}',
      '{"a":1,"constructor":{"prototype":{"polluted":1}}}',
      '{"a":1,"\\u0063onstructor":{"prototype":{"polluted":1}}}',
    ]) {
      const value = parse(text) as Record<string, unknown>;
      expect(Object.keys(value), text).toEqual(['a']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });

  it('parses ordinary bodies, keeps escaped text, and an empty body is {}', () => {
    expect(parse('[{"date":"2024-01-01T00:00:00Z","raw":null}]')).toEqual([{ date: '2024-01-01T00:00:00Z', raw: null }]);
    expect(parse('{"text":"caf\\u00e9"}')).toEqual({ text: 'café' });
    expect(parse('  ')).toEqual({});
    // Text that only looks like those keys (it takes the careful path) keeps every value.
    expect(parse('{"note":"my_protocol","x":{"deconstructor":1}}')).toEqual({ note: 'my_protocol', x: { deconstructor: 1 } });
  });
});
