// The one place a SQLite connection is opened (the service, its checkpoint thread, tools), with the
// build of better-sqlite3 this Node can run. Version 13 is built on Node-API 10 (Node 22.14 and
// newer). Node 20 has Node-API 9 and gets version 12, installed as `better-sqlite3-v12`; that one
// derives from node::ObjectWrap, which aborts the process on Node 24.19 and newer when the garbage
// collector frees a statement, so it is never loaded where 13 can be.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const NODE_API_OF_V13 = 10;

function driver(): typeof BetterSqlite3 {
  const require = createRequire(import.meta.url);
  if (Number(process.versions.napi) >= NODE_API_OF_V13) return require('better-sqlite3') as typeof BetterSqlite3;
  try {
    return require('better-sqlite3-v12') as typeof BetterSqlite3;
  } catch (err) {
    throw new Error(
      `Node ${process.versions.node} runs the embedded store with better-sqlite3-v12 (an optional dependency), ` +
        'which is not installed or did not build: run `npm install` again, or use Node 22.14 or newer.',
      { cause: err },
    );
  }
}

/** Opens (or creates) the database file with the driver for this Node. */
export function openDatabase(file: string, options?: BetterSqlite3.Options): BetterSqlite3.Database {
  const Database = driver();
  return new Database(file, options);
}
