// U+2028, U+2029 and U+0085 inside the embedded store's lines. JSON leaves them raw inside strings,
// but NeDB's loader (lib/byline.js) also breaks lines at them: a document holding one became two
// lines that do not parse, so it vanished at the next start, and past a tenth of a file NeDB
// refused to start at all. Lines are written with them escaped; files written before that are
// repaired before they are loaded (on disk each document was still one line: only the loader split it).
import { open, readFile, rename } from 'node:fs/promises';
import { createRequire } from 'node:module';

const LINE_BREAK = /[\u2028\u2029\u0085]/;
const LINE_BREAKS = /[\u2028\u2029\u0085]/g;
const escapeOne = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** The line with those characters escaped (they can only stand inside JSON strings, where the escape reads the same). */
export function escapeLineSeparators(line: string): string {
  return LINE_BREAK.test(line) ? line.replace(LINE_BREAKS, escapeOne) : line;
}

/** Their UTF-8 bytes: searched in the raw file, so a clean file is never decoded. */
const RAW = [Buffer.from('\u2028'), Buffer.from('\u2029'), Buffer.from('\u0085')];

const storage = createRequire(import.meta.url)('@seald-io/nedb/lib/storage.js') as {
  ensureDatafileIntegrityAsync(filename: string): Promise<void>;
};

/**
 * Escapes those characters in a data file written before they were, so NeDB loads every document
 * of it. Crash-safe: the repaired text goes to a temporary file, synced, then renamed over. True
 * when the file was rewritten.
 */
export async function repairLineSeparators(filename: string): Promise<boolean> {
  // The file NeDB would load: after a crash in a compaction that is the `~` copy, renamed into place.
  await storage.ensureDatafileIntegrityAsync(filename);
  const bytes = await readFile(filename);
  if (!RAW.some((b) => bytes.includes(b))) return false;
  const temp = `${filename}.repair~`;
  const file = await open(temp, 'w');
  try {
    await file.writeFile(escapeLineSeparators(bytes.toString('utf8')));
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, filename);
  return true;
}
