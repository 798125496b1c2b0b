// Worker entry: the callback sender's thread. Signing, the POST through the SSRF-guarded agent
// and reading the answer happen here, off the thread that serves the API and writes the store
// (they were about a third of that thread's time per callback). One CallbackSender, and so one
// connection pool, for the thread's life. Requests arrive in batches ([id, request] pairs, one
// message per event-loop turn of the dispatcher's thread) and outcomes go back the same way.
import { parentPort, workerData } from 'node:worker_threads';
import { CallbackSender, type AttemptOutcome, type CallbackRequest, type SenderOptions } from '../src/delivery/callback-sender.js';
import { nameThisThread } from './thread-name.js';

export type SenderTask = [id: number, req: CallbackRequest];
export type SenderResult = [id: number, outcome: AttemptOutcome];

nameThisThread('gt-sender');
const sender = new CallbackSender(workerData as SenderOptions);
let done: SenderResult[] = [];

function reply(result: SenderResult) {
  if (done.length === 0) setImmediate(flush);
  done.push(result);
}

function flush() {
  const batch = done;
  done = [];
  parentPort!.postMessage(batch);
}

parentPort!.on('message', (tasks: SenderTask[]) => {
  for (const [id, req] of tasks) void sender.attempt(req).then((outcome) => reply([id, outcome]));
});
