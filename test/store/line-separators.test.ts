// Data files written before U+2028, U+2029 and U+0085 were escaped hold them raw inside JSON
// strings. NeDB's loader breaks lines there too, so each such document vanished at start, and past
// a tenth of the file NeDB refused to start. The engine repairs the file before loading it.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedEngine } from '../../src/store/embedded-engine.js';
import { escapeLineSeparators } from '../../src/store/line-separators.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const TEXT = 'a\u2028b\u2029c\u0085d';

describe('line and paragraph separators in the embedded store', () => {
  it('loads every document of a file that holds them raw (as written before), most of the file included', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'linesep-'));
    dirs.push(dir);
    // 3 of 4 documents hold one: NeDB alone refuses such a file ("…% of the data file is corrupt").
    const docs = [{ _id: 'a', note: TEXT }, { _id: 'b', note: 'plain' }, { _id: 'c', [`k${TEXT}`]: 1 }, { _id: 'd', list: [TEXT] }];
    await writeFile(path.join(dir, 'things.db'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');

    const engine = await openEmbeddedEngine(dir, ['things']);
    try {
      const things = engine.collection<{ _id: string }>('things');
      for (const d of docs) expect(await things.findOne({ _id: d._id })).toEqual(d);
    } finally {
      await engine.close();
    }
    // Repaired on disk: no raw separator is left for the next start.
    expect(/[\u2028\u2029\u0085]/.test(await readFile(path.join(dir, 'things.db'), 'utf8'))).toBe(false);
  });

  it('writes them escaped, reading back the same text', () => {
    const line = escapeLineSeparators(JSON.stringify({ note: TEXT }));
    expect(line).toBe('{"note":"a\\u2028b\\u2029c\\u0085d"}');
    expect(JSON.parse(line)).toEqual({ note: TEXT });
  });
});
