import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupAppender } from '../../src/store/group-commit.js';
import { openEmbeddedEngine } from '../../src/store/embedded-engine.js';

const dirs: string[] = [];
const tempDir = async () => {
  const d = await mkdtemp(path.join(tmpdir(), 'group-commit-'));
  dirs.push(d);
  return d;
};
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('GroupAppender', () => {
  it('writes every enqueued line, in order, and resolves each caller only after its line is on disk', async () => {
    const file = path.join(await tempDir(), 'log');
    const a = new GroupAppender(file);
    const done = await Promise.all(
      Array.from({ length: 500 }, async (_, i) => {
        await a.enqueue(`${i}\n`);
        const text = await readFile(file, 'utf8');
        return text.split('\n').includes(String(i));
      }),
    );
    expect(done.every(Boolean)).toBe(true);
    await a.release();
    expect((await readFile(file, 'utf8')).trim().split('\n').map(Number)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });

  it('writes multi-byte text whole: the byte count, not the character count, decides a short write', async () => {
    const file = path.join(await tempDir(), 'log');
    const a = new GroupAppender(file);
    const lines = Array.from({ length: 50 }, (_, i) => `{"name":"Café ☕ 𝄞 ${i}"}\n`);
    await Promise.all(lines.map((l) => a.enqueue(l)));
    await a.release();
    expect(await readFile(file, 'utf8')).toBe(lines.join(''));
  });
});

describe('embedded engine with group commit', () => {
  type Doc = { _id: string; n: number };

  it('keeps every concurrent write across a close and reopen, and across a compaction in the middle', async () => {
    const dir = await tempDir();
    let engine = await openEmbeddedEngine(dir, ['things']);
    let col = engine.collection<Doc>('things');
    const writes = Array.from({ length: 300 }, (_, i) => col.insertOne({ _id: `d${i}`, n: i }));
    await Promise.all(writes.slice(0, 150));
    await Promise.all([...writes.slice(150), col.updateOne({ _id: 'd1' }, { $set: { n: -1 } }), col.deleteOne({ _id: 'd2' })]);
    await engine.close(); // compacts, then releases the appender
    engine = await openEmbeddedEngine(dir, ['things']);
    col = engine.collection<Doc>('things');
    // Writes after a compaction (close compacted the file) go to the new file, not the replaced one.
    await Promise.all(Array.from({ length: 50 }, (_, i) => col.updateOne({ _id: `d${i + 10}` }, { $inc: { n: 1000 } })));
    await engine.close();
    engine = await openEmbeddedEngine(dir, ['things']);
    col = engine.collection<Doc>('things');
    expect(await col.countDocuments({})).toBe(299);
    expect((await col.findOne({ _id: 'd1' }))?.n).toBe(-1);
    expect(await col.findOne({ _id: 'd2' })).toBeNull();
    expect((await col.findOne({ _id: 'd10' }))?.n).toBe(1010);
    expect((await col.findOne({ _id: 'd60' }))?.n).toBe(60);
    await engine.close();
  });
  it('bulk replacements and plain-JSON lines are read back as they were written, without a compaction', async () => {
    const dir = await tempDir();
    const engine = await openEmbeddedEngine(dir, ['things']);
    type Rich = { _id: string; n: number; raw: unknown; when?: Date };
    const col = engine.collection<Rich>('things');
    await col.insertMany([{ _id: 'a', n: 1, raw: null }, { _id: 'b', n: 1, raw: { x: [1, { y: 'z' }] } }]);
    const res = await col.bulkWrite([
      { replaceOne: { filter: { _id: 'a', n: { $lt: 2 } }, replacement: { _id: 'a', n: 2, raw: { nested: { deep: [true, null, 'é'] } } } } },
      { replaceOne: { filter: { _id: 'b', n: { $lt: 1 } }, replacement: { _id: 'b', n: 9, raw: null } } },
    ]);
    expect(res.matchedCount).toBe(1);
    // A Date still takes NeDB's own serialisation and comes back a Date.
    await col.insertOne({ _id: 'c', n: 3, raw: null, when: new Date(1_700_000_000_123) });
    // A second engine reads the files as a crashed process left them (the first is never closed).
    const after = (await openEmbeddedEngine(dir, ['things'])).collection<Rich>('things');
    expect(await after.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 2, raw: { nested: { deep: [true, null, 'é'] } } });
    expect(await after.findOne({ _id: 'b' })).toEqual({ _id: 'b', n: 1, raw: { x: [1, { y: 'z' }] } });
    expect((await after.findOne({ _id: 'c' }))?.when).toEqual(new Date(1_700_000_000_123));
    await engine.close();
  });

  it('goes on writing while a compaction rewrites the file, and keeps every write made meanwhile', async () => {
    const dir = await tempDir();
    const engine = await openEmbeddedEngine(dir, ['things']);
    type Big = { _id: string; n: number; pad: string };
    const col = engine.collection<Big>('things');
    const pad = 'x'.repeat(1000);
    for (let i = 0; i < 20_000; i += 1000) await col.insertMany(Array.from({ length: 1000 }, (_, j) => ({ _id: `d${i + j}`, n: i + j, pad })));
    let compacted = false;
    const compaction = engine.compact().then(() => (compacted = true));
    // Inserts, updates and deletes, each acknowledged (durable) before the next is made.
    let k = 0;
    let ackedDuring = 0;
    while (!compacted || k < 30) {
      await col.insertOne({ _id: `new${k}`, n: 100_000 + k, pad: '' });
      await col.updateOne({ _id: `d${k}` }, { $set: { n: -1 } });
      await col.deleteOne({ _id: `d${19_999 - k}` });
      if (!compacted) ackedDuring++;
      k++;
    }
    await compaction;
    // NeDB's own compaction held every operation until the file was rewritten and synced.
    expect(ackedDuring).toBeGreaterThan(0);
    const lines = (await readFile(path.join(dir, 'things.db'), 'utf8')).trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    // A second engine reads the file as a crashed process left it (the first is never closed).
    const after = (await openEmbeddedEngine(dir, ['things'])).collection<Big>('things');
    expect(await after.countDocuments({})).toBe(20_000);
    for (const i of [0, k - 1]) {
      expect((await after.findOne({ _id: `new${i}` }))?.n).toBe(100_000 + i);
      expect((await after.findOne({ _id: `d${i}` }))?.n).toBe(-1);
      expect(await after.findOne({ _id: `d${19_999 - i}` })).toBeNull();
    }
    expect((await after.findOne({ _id: `d${k}` }))?.n).toBe(k);
    await engine.close();
  });

  it('reports a periodic compaction that fails, and keeps the file and every write', async () => {
    const dir = await tempDir();
    const failures: Array<{ collection: string; message: string }> = [];
    const engine = await openEmbeddedEngine(dir, ['things'], {
      compactionIntervalMs: 50,
      onCompactionError: (err, collection) => failures.push({ collection, message: String(err) }),
    });
    const col = engine.collection<Doc>('things');
    await col.insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: `d${i}`, n: i })));
    // The temporary file's name is taken by a directory: every compaction fails.
    await mkdir(path.join(dir, 'things.db~'));
    await until(() => failures.length >= 2);
    expect(failures[0]).toMatchObject({ collection: 'things', message: expect.stringMatching(/EISDIR/) });
    await col.updateOne({ _id: 'd1' }, { $set: { n: -1 } });
    // Closing says the last compaction failed, and still lets go of the files and the lock.
    await expect(engine.close()).rejects.toThrow(/EISDIR/);
    await rm(path.join(dir, 'things.db~'), { recursive: true });
    const reopened = await openEmbeddedEngine(dir, ['things']);
    const after = reopened.collection<Doc>('things');
    expect(await after.countDocuments({})).toBe(100);
    expect((await after.findOne({ _id: 'd1' }))?.n).toBe(-1);
    await reopened.close();
  });
});

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
