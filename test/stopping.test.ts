// Which signals stop the service and which force it (src/stopping.ts): under `npm start` a Ctrl-C
// or a systemd stop reaches node twice at once, and that must drain like one signal; a signal sent
// well after the first still ends a drain that hangs.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { SAME_STOP_MS, stopOnSignals } from '../src/stopping.js';

function harness() {
  const signals = new EventEmitter();
  const calls = { drains: 0, exits: [] as number[], logged: [] as string[] };
  let clock = 1_000_000;
  const uninstall = stopOnSignals({
    signals,
    drain: () => (calls.drains += 1),
    exit: (code) => calls.exits.push(code),
    now: () => clock,
    log: { info: (_o, msg) => calls.logged.push(msg), error: (_o, msg) => calls.logged.push(msg) },
  });
  const send = (signal: 'SIGINT' | 'SIGTERM', afterMs = 0) => {
    clock += afterMs;
    signals.emit(signal, signal);
  };
  return { signals, calls, send, uninstall };
}

describe('stop signals', () => {
  it('drains once and does not force when the same SIGINT arrives from the terminal and from npm', () => {
    const { calls, send } = harness();
    send('SIGINT');
    send('SIGINT', 3);
    expect(calls.drains).toBe(1);
    expect(calls.exits).toEqual([]);
  });

  it('drains once for a SIGTERM sent to the whole process group', () => {
    const { calls, send } = harness();
    send('SIGTERM');
    send('SIGTERM', 1);
    expect(calls).toMatchObject({ drains: 1, exits: [] });
  });

  it('a signal sent well after the first stops at once with exit code 1', () => {
    const { calls, send } = harness();
    send('SIGINT');
    send('SIGINT', 5);
    send('SIGINT', SAME_STOP_MS);
    expect(calls.drains).toBe(1);
    expect(calls.exits).toEqual([1]);
    expect(calls.logged.at(-1)).toMatch(/second SIGINT/);
  });

  it('stops listening when uninstalled', () => {
    const { signals, uninstall } = harness();
    expect(signals.listenerCount('SIGINT')).toBe(1);
    uninstall();
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0);
  });
});
