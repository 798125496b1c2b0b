// batch/run (reference §4.11): the request (jobs, each a relative URL with an optional body and
// headers) and the answer (one result per job, in order).
import { Type } from '@sinclair/typebox';
import { TokenFields } from './common.js';

/** The most jobs one batch/run call takes: the Ruby client's own chunk size (reference §7 item 20). */
export const BATCH_LIMIT = 200;
/** The most a batch answers: the bytes of its jobs' answers added up (the largest body a request may send, trigger/replay's). */
export const BATCH_ANSWER_LIMIT = 8 * 1024 * 1024;

export const BatchJob = Type.Object({
  relative_url: Type.String({ minLength: 1, maxLength: 4096, description: 'The method\'s path after /1/, with a query string if any: `place/info/3nE`, `layer/info?key=k`' }),
  body: Type.Optional(Type.Unknown({ description: 'The JSON body. A job with a body is a POST; one with none (or `{}`, or `[]`, PHP\'s empty hash) a GET, or a POST where the path has no GET method' })),
  headers: Type.Optional(Type.Union([
    Type.Array(Type.String({ maxLength: 8192 }), { maxItems: 50, description: 'Raw header lines: `Timezone: …;;America/Los_Angeles`' }),
    Type.Record(Type.String(), Type.String({ maxLength: 8192 }), { description: 'Header name to value (as geoloqi-ruby sends them)' }),
    Type.Null(),
  ])),
  method: Type.Optional(Type.Union([Type.Literal('GET'), Type.Literal('POST')], { description: 'Overrides the method the body implies' })),
});

export const BatchRunBody = Type.Object({
  ...TokenFields,
  batch: Type.Array(BatchJob, { maxItems: BATCH_LIMIT, description: `The jobs, run one after another in this order (at most ${BATCH_LIMIT})` }),
});

export const BatchResult = Type.Object({
  code: Type.Integer({ description: 'The job\'s HTTP status' }),
  headers: Type.Array(Type.Object({ name: Type.String(), value: Type.String() }, { additionalProperties: false })),
  body: Type.Unknown({ description: 'The job\'s answer: parsed JSON (text where it is not JSON)' }),
  time_ms: Type.Number({ description: 'How long the job took' }),
}, { additionalProperties: false });

export const BatchRunResult = Type.Object({ result: Type.Array(BatchResult) }, { additionalProperties: false, description: 'One result per job, in request order' });
