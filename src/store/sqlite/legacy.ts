// Data directories written by the old embedded engine: one append-only file per collection
// (`<name>.db`, a JSON document per line; a later line for the same _id replaces it, a
// `{"$$deleted":true}` line removes it, `$$indexCreated` lines declare indexes). They are never
// read silently: the engine refuses to start beside them, and `importLegacy` copies them in.
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { tableExists } from './tables.js';

export const LEGACY_FOLDER = 'legacy-imported';

export function legacyFilesIn(dataDir: string, names: readonly string[]): string[] {
  return names.map((n) => `${n}.db`).filter((f) => existsSync(path.join(dataDir, f)));
}

export interface LegacyImport {
  collection: string;
  documents: number;
  /** Lines that were not whole JSON (a line half-written when the old engine was killed). */
  skippedLines: number;
}

/** The documents a legacy file holds at its end, in the order they were first written. */
export function readLegacyFile(file: string): { docs: Array<{ _id: string }>; skippedLines: number } {
  const docs = new Map<string, { _id: string }>();
  let skippedLines = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(line) as Record<string, unknown>;
    } catch {
      skippedLines++;
      continue;
    }
    if ('$$indexCreated' in doc || '$$indexRemoved' in doc) continue;
    if (typeof doc._id !== 'string') {
      skippedLines++;
      continue;
    }
    if (doc.$$deleted === true) docs.delete(doc._id);
    else docs.set(doc._id, doc as { _id: string });
  }
  return { docs: [...docs.values()], skippedLines };
}

/**
 * Copies every legacy file into a new table each in one transaction, then moves the files into
 * DATA_DIR/legacy-imported so that the service starts on the imported data.
 */
export function importLegacy(db: Database.Database, dataDir: string, names: readonly string[]): LegacyImport[] {
  const found = names.filter((n) => existsSync(path.join(dataDir, `${n}.db`)));
  const report: LegacyImport[] = [];
  const parsed = found.map((name) => ({ name, ...readLegacyFile(path.join(dataDir, `${name}.db`)) }));
  db.transaction(() => {
    for (const { name, docs, skippedLines } of parsed) {
      if (!/^[a-z_]+$/.test(name)) throw new Error(`bad collection name ${name}`);
      // Imported as the document tables of the releases before typed tables (layout 0 of
      // tables.ts): each repository brings its table to its layout when the store opens next.
      if (tableExists(db, name)) throw new Error(`collection ${name} exists already: import only into a new DATA_DIR`);
      db.exec(`CREATE TABLE ${name} (_id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL)`);
      const insert = db.prepare(`INSERT INTO ${name} (_id, doc) VALUES (?, ?)`);
      for (const doc of docs) insert.run(doc._id, JSON.stringify(doc));
      report.push({ collection: name, documents: docs.length, skippedLines });
    }
  })();
  const folder = path.join(dataDir, LEGACY_FOLDER);
  mkdirSync(folder, { recursive: true });
  for (const name of found) renameSync(path.join(dataDir, `${name}.db`), path.join(folder, `${name}.db`));
  return report;
}
