// NeDB copies every document it inserts twice: once to store it (so the caller's object is not
// shared), and once more to return it. The engine's collections never read what an insert (or an
// upsert, which inserts) returns, so the second copy is skipped: the stored document is returned as
// it is, and the engine drops it unseen. Nothing outside src/store/embedded-engine.ts may call
// insertAsync or updateAsync on these datastores and keep the result.
import { createRequire } from 'node:module';

type Doc = Record<string, unknown>;

interface NedbDatastore {
  _prepareDocumentForInsertion(doc: Doc | Doc[]): Doc | Doc[];
  _insertInCache(doc: Doc | Doc[]): void;
  persistence: { persistNewStateAsync(docs: Doc[]): Promise<void> };
  _insertAsync(doc: Doc | Doc[]): Promise<Doc | Doc[]>;
}

const nedbRequire = createRequire(import.meta.url);
const Datastore = nedbRequire('@seald-io/nedb/lib/datastore.js') as { prototype: NedbDatastore };
const PATCHED = Symbol.for('geotrigger.nedbInsertNoCopy');

export function patchNedbInsertReturn(): void {
  const proto = Datastore.prototype as NedbDatastore & { [PATCHED]?: true };
  if (proto[PATCHED]) return;
  proto._insertAsync = async function _insertAsync(this: NedbDatastore, newDoc: Doc | Doc[]) {
    const prepared = this._prepareDocumentForInsertion(newDoc);
    this._insertInCache(prepared);
    await this.persistence.persistNewStateAsync(Array.isArray(prepared) ? prepared : [prepared]);
    return prepared;
  };
  proto[PATCHED] = true;
}
