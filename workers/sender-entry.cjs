// The sender thread's entry (src/delivery/sender-thread.ts). In a worker thread only tsx's require
// hook takes a TypeScript module: Worker(file.ts), an eval worker and import() refuse it.
require('./sender-worker.ts');
