// The floor server's shard thread entry (load-tests/floor-server.ts). In a worker thread only tsx's
// require hook takes a TypeScript module, as for the service's sender (workers/sender-entry.cjs).
require('./floor-shard.ts');
