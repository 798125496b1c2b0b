// The sender thread's entry (src/delivery/sender-thread.ts) when the service runs its TypeScript
// sources: in a worker thread only tsx's require hook takes a TypeScript module (Worker(file.ts), an
// eval worker and import() refuse it). Compiled, the thread starts from dist's sender-worker.js.
require('./sender-worker.ts');
