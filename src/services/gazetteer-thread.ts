// The geocoder's data, decoded in a short-lived worker thread (workers/gazetteer-worker.ts): the
// thread posts the gazetteer's columns (their buffers transferred, not copied) and ends, so
// neither the decoding's time nor the heap it grows stays on the thread that serves the API.
import { Worker } from 'node:worker_threads';
import { workerEntry, workerExecArgv } from '../../workers/exec-argv.js';
import type { GazetteerData } from '../geo/gazetteer.js';

// Under tsx the thread starts from a CommonJS shim (see there); compiled, from the module itself.
const WORKER_FILE = workerEntry('gazetteer-worker', 'gazetteer-entry.cjs');

/** Decodes the bundled place data in a thread of its own; `signal` stops the thread (the app closes). */
export function loadGazetteerData(signal?: AbortSignal): Promise<GazetteerData> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('stopped before the place data was read'));
    const worker = new Worker(WORKER_FILE, { execArgv: workerExecArgv() });
    let received = false;
    const stop = () => void worker.terminate();
    signal?.addEventListener('abort', stop, { once: true });
    worker.once('message', (data: GazetteerData) => {
      received = true;
      resolve(data);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      signal?.removeEventListener('abort', stop);
      if (!received) reject(new Error(signal?.aborted ? 'stopped before the place data was read' : `the place data thread exited with code ${code}`));
    });
  });
}
