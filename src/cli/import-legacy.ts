// `npm run import-legacy`: copies a DATA_DIR written by the old embedded engine (one `<name>.db`
// file per collection) into the SQLite database, once, with the service stopped. The old files
// move to DATA_DIR/legacy-imported; nothing is deleted. Every collection is imported as documents:
// the store brings each table to its layout when it opens next.
import { ConfigError, loadConfig } from '../config.js';
import { ALL_COLLECTION_NAMES } from '../store/indexes.js';
import { openSqliteEngine } from '../store/sqlite/engine.js';
import { importLegacy, LEGACY_FOLDER, legacyFilesIn } from '../store/sqlite/legacy.js';

async function main(): Promise<number> {
  const { dataDir } = loadConfig();
  if (legacyFilesIn(dataDir, ALL_COLLECTION_NAMES).length === 0) {
    console.log(`nothing to import: ${dataDir} holds no files of the old engine`);
    return 0;
  }
  const engine = openSqliteEngine(dataDir, ALL_COLLECTION_NAMES, { allowLegacy: true });
  try {
    // The tables as the old release had them: the service brings them to this layout, with their indexes, when it starts.
    const report = importLegacy(engine.db, dataDir, ALL_COLLECTION_NAMES);
    for (const r of report) {
      console.log(`${r.collection}: ${r.documents} documents${r.skippedLines ? ` (${r.skippedLines} unreadable lines skipped)` : ''}`);
    }
    console.log(`imported into ${dataDir}; the old files are in ${LEGACY_FOLDER}/`);
    return 0;
  } finally {
    await engine.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : `import failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
