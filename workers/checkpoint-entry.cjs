// The checkpoint thread's entry (src/store/sqlite/checkpointer.ts) when the service runs its
// TypeScript sources: in a worker thread only tsx's require hook takes a TypeScript module.
// Compiled, the thread starts from dist's checkpoint-worker.js.
require('./checkpoint-worker.ts');
