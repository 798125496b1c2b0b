// Micro-benchmark of the embedded store's query check: NeDB's own `match` against the direct
// check of src/store/nedb-quick-match.ts, on the queries the hot paths make (a last location's
// replace filter, an outbox row's lease filter), for 2,000 stored documents. Prints ns per match.
// Run: npx tsx load-tests/bench-match.ts [--rounds N]
import { createRequire } from 'node:module';
import { quickMatch } from '../src/store/nedb-quick-match.js';
import { numberArg } from './bench-args.js';
import { lastLocationRow, outboxRow } from './store-rows.js';

type Doc = Record<string, unknown>;
const nedb = createRequire(import.meta.url)('@seald-io/nedb/lib/model.js') as { match: (d: Doc, q: Doc) => boolean };
const ROUNDS = numberArg('rounds', 3);
const REPEAT = 200;

const cases: Array<[name: string, docs: Doc[], query: (d: Doc) => Doc]> = [
  ['last location { _id, date: { $lt } }', Array.from({ length: 2000 }, (_, i) => lastLocationRow(i, i)), (d) => ({ _id: d._id, date: { $lt: (d.date as number) + 1 } })],
  ['outbox row { _id, lease_owner }', Array.from({ length: 2000 }, (_, i) => outboxRow(`e${i}`, i)), (d) => ({ _id: d._id, lease_owner: 'owner:1' })],
];

const time = (docs: Doc[], queries: Doc[], match: (d: Doc, q: Doc) => boolean | undefined) => {
  let hits = 0;
  const t0 = process.hrtime.bigint();
  for (let r = 0; r < REPEAT; r++) for (let i = 0; i < docs.length; i++) if (match(docs[i]!, queries[i]!)) hits++;
  if (hits !== REPEAT * docs.length) throw new Error('every document should match its query');
  return Number(process.hrtime.bigint() - t0) / (REPEAT * docs.length);
};

for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, docs, query] of cases) {
    const queries = docs.map(query);
    const slow = time(docs, queries, nedb.match);
    const quick = time(docs, queries, quickMatch);
    console.log(`round ${round}  ${name.padEnd(38)} NeDB match ${slow.toFixed(0).padStart(4)} ns   direct ${quick.toFixed(0).padStart(4)} ns`);
  }
}
