// The geocoder's data thread's entry (src/services/gazetteer-thread.ts) when the service runs its
// TypeScript sources: in a worker thread only tsx's require hook takes a TypeScript module.
// Compiled, the thread starts from dist's gazetteer-worker.js.
require('./gazetteer-worker.ts');
