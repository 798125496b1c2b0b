// Piscina worker entry of the replay threads (src/engine/replay-pool.ts): each task is one replay,
// run by src/engine/replay-run.ts and forgotten when it answers, so a thread holds nothing between
// tasks and its heap goes with it when the pool ends it for being idle.
import { runReplay, type ReplayReply, type ReplayTask } from '../src/engine/replay-run.js';
import { nameThisThread } from './thread-name.js';

nameThisThread('gt-replay');

export default function replayTask(task: ReplayTask): ReplayReply {
  return runReplay(task);
}
