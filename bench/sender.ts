// Benchmark of one callback attempt in the sender's thread: CallbackSender.attempt() (URL check,
// signing, the POST through the SSRF-guarded agent, reading the answer) against a local receiver in
// another thread, `--inflight` attempts at a time. Prints attempts/s and the CPU the sending thread
// spends per attempt, the figure that counts on a box whose cores are all busy. With `--rate N`,
// attempts start at N per second instead (a few every 5 ms, as callbacks come in a busy service),
// where fewer attempts share each wake-up of the thread and each costs more.
// Run: npx tsx bench/sender.ts [--attempts N] [--inflight N] [--body-bytes N] [--rounds N] [--rate N --seconds N]
import { performance } from 'node:perf_hooks';
import { CallbackSender } from '../src/delivery/callback-sender.js';
import { threadCpuMs } from '../workers/shard-worker.js';
import { numberArg } from './args.js';
import { startReceiver } from './receiver.js';

const ATTEMPTS = numberArg('attempts', 20_000);
const INFLIGHT = numberArg('inflight', 64);
const BODY_BYTES = numberArg('body-bytes', 1_500); // a callback payload of the harness's world is ~1.4 kB
const ROUNDS = numberArg('rounds', 3);
const RATE = numberArg('rate', 0);
const SECONDS = numberArg('seconds', 10);

const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
const body = JSON.stringify({ event: 'enter', pad: 'x'.repeat(Math.max(0, BODY_BYTES - 30)) });

/** One attempt, which must be delivered (the receiver always answers 200). */
async function deliver(sender: CallbackSender, url: string, eventId: string): Promise<void> {
  const out = await sender.attempt({ eventId, url, body, secret: SECRET });
  if (out.kind !== 'delivered') throw new Error(`attempt ${eventId}: ${out.kind} ${out.error}`);
}

/** Runs `work` (which returns how many were delivered); attempts/s and the thread's CPU per attempt. */
async function measure(work: () => Promise<number>) {
  const cpu0 = threadCpuMs() ?? NaN;
  const t0 = performance.now();
  const delivered = await work();
  const wallMs = performance.now() - t0;
  const cpuMs = (threadCpuMs() ?? NaN) - cpu0;
  return { delivered, perS: Math.round((delivered * 1000) / wallMs), cpuUs: (cpuMs * 1000) / delivered };
}

/** `n` attempts, INFLIGHT at a time. */
function round(sender: CallbackSender, url: string, n: number, tag: string) {
  return measure(async () => {
    let next = 0;
    const lane = async () => {
      while (next < n) await deliver(sender, url, `${tag}_${next++}`);
    };
    await Promise.all(Array.from({ length: INFLIGHT }, lane));
    return n;
  });
}

/** RATE attempts a second for SECONDS, a tick every 5 ms; measured until the last one ends. */
function paced(sender: CallbackSender, url: string, tag: string) {
  return measure(async () => {
    const perTick = (RATE * 5) / 1000;
    const pending: Array<Promise<void>> = [];
    const t0 = performance.now();
    let due = 0;
    while (performance.now() - t0 < SECONDS * 1000) {
      for (due += perTick; due >= 1; due--) pending.push(deliver(sender, url, `${tag}_${pending.length}`));
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(pending);
    return pending.length;
  });
}

const rx = await startReceiver();
const sender = new CallbackSender({ allowPrivate: true });
await round(sender, rx.url, Math.min(2_000, ATTEMPTS), 'warm');
console.log(`callback attempts, ${RATE ? `${RATE}/s for ${SECONDS} s` : `${INFLIGHT} in flight`}, ${body.length}-byte body, receiver in another thread`);
for (let r = 1; r <= ROUNDS; r++) {
  const { delivered, perS, cpuUs } = RATE ? await paced(sender, rx.url, `r${r}`) : await round(sender, rx.url, ATTEMPTS, `r${r}`);
  console.log(`  round ${r}: ${delivered} delivered, ${perS} attempts/s, sending thread CPU ${cpuUs.toFixed(1)} µs per attempt`);
}
await sender.close();
await rx.stop();
