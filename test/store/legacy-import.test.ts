// A DATA_DIR written by the old embedded engine is never read as empty: the store refuses to open
// beside its files with a message naming the import, and the import brings every document back
// as the old engine held it at its end (later lines replace earlier ones, deletions apply).
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_COLLECTION_NAMES } from '../../src/store/indexes.js';
import { LegacyDataError } from '../../src/store/sqlite/engine.js';
import { importLegacy, LEGACY_FOLDER } from '../../src/store/sqlite/legacy.js';
import { openSqliteEngine } from '../../src/store/sqlite/engine.js';
import { openStore } from '../../src/store/store.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function legacyDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'legacy-'));
  dirs.push(dir);
  const lines = [
    { _id: 'l1', app_id: 'a', name: 'first' },
    { _id: 'l2', app_id: 'a', name: 'deleted later' },
    { $$indexCreated: { fieldName: 'app_id', unique: false, sparse: false } },
    { _id: 'l1', app_id: 'a', name: 'renamed' },
    { _id: 'l2', $$deleted: true },
    { _id: 'l3', app_id: 'a', name: 'third' },
  ].map((l) => JSON.stringify(l));
  // The last line was half-written when the old engine was killed.
  await writeFile(path.join(dir, 'layers.db'), `${lines.join('\n')}\n{"_id":"l4","app_`);
  // A collection this release keeps in a typed table: imported as documents, migrated at open.
  const last = { _id: 'u1', app_id: 'a', user_id: 'u1', uuid: 'x-1', date: 1_700_000_000_000, latitude: 45.5, longitude: -122.6, horizontal_accuracy: 12, raw: { b: 1 } };
  await writeFile(path.join(dir, 'last_locations.db'), `${JSON.stringify(last)}\n`);
  return dir;
}

describe('a DATA_DIR of the old engine', () => {
  it('is refused with a message that names the import, and left as it was', async () => {
    const dir = await legacyDir();
    const opening = openStore({ kind: 'embedded', dataDir: dir });
    await expect(opening).rejects.toBeInstanceOf(LegacyDataError);
    await expect(opening).rejects.toThrow(/layers\.db.*npm run import-legacy/);
    expect(existsSync(path.join(dir, 'layers.db'))).toBe(true);
  });

  it('is imported whole, and the store then opens on it', async () => {
    const dir = await legacyDir();
    const engine = openSqliteEngine(dir, ALL_COLLECTION_NAMES, { allowLegacy: true });
    const report = importLegacy(engine.db, dir, ALL_COLLECTION_NAMES);
    await engine.close();
    expect(report).toEqual([{ collection: 'layers', documents: 2, skippedLines: 1 }, { collection: 'last_locations', documents: 1, skippedLines: 0 }]);
    expect(existsSync(path.join(dir, LEGACY_FOLDER, 'layers.db'))).toBe(true);

    const store = await openStore({ kind: 'embedded', dataDir: dir });
    try {
      const layers = await store.layers.forApp('a');
      expect(layers.map((l) => [l._id, l.name])).toEqual([['l1', 'renamed'], ['l3', 'third']]);
      expect(await store.lastLocations.of('a', 'u1')).toMatchObject({ uuid: 'x-1', date: 1_700_000_000_000, raw: { b: 1 }, received_at: 1_700_000_000_000 });
    } finally {
      await store.close();
    }
  });
});
