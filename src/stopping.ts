// How a signal stops the service. Ctrl-C in a terminal signals the whole foreground process group:
// under `npm start` node gets SIGINT from the terminal and the same SIGINT again from npm, which
// passes on what it receives; systemd's SIGTERM to the service's control group arrives twice the
// same way. A repeat that comes with the first signal is therefore the same request to stop, and
// only one sent later (a second Ctrl-C while the drain hangs) ends the process without draining.
import type { EventEmitter } from 'node:events';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** How long after the first stop signal another one is taken as its echo through npm or the group. */
export const SAME_STOP_MS = 2_000;

export interface StopLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface StopOptions {
  /** Drains and exits the process (close-with-grace's close()). */
  drain: () => unknown;
  log: StopLog;
  /** What the signals arrive on: the process. */
  signals?: Pick<EventEmitter, 'on' | 'removeListener'>;
  exit?: (code: number) => void;
  now?: () => number;
}

/** Listens for SIGINT and SIGTERM; returns a function that stops listening. */
export function stopOnSignals(opts: StopOptions): () => void {
  const signals = opts.signals ?? process;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const now = opts.now ?? Date.now;
  let firstAt: number | undefined;
  const onSignal = (signal: StopSignal) => {
    if (firstAt === undefined) {
      firstAt = now();
      opts.log.info({ signal }, 'stopping: finishing the work in hand');
      void opts.drain();
      return;
    }
    if (now() - firstAt < SAME_STOP_MS) return;
    opts.log.error({ signal }, `second ${signal}: stopping at once, without draining`);
    exit(1);
  };
  for (const signal of STOP_SIGNALS) signals.on(signal, onSignal);
  return () => {
    for (const signal of STOP_SIGNALS) signals.removeListener(signal, onSignal);
  };
}
