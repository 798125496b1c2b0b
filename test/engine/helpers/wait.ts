// Waiting for asynchronous effects (callbacks, dwell ticks) by polling a condition, never by
// sleeping a fixed time and hoping: the wait ends as soon as the effect is there, and a timeout
// fails with what was awaited and the last value seen.

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/** Polls `check` until it returns something truthy, which is returned. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { timeoutMs = 20_000, intervalMs = 25 }: WaitOptions = {},
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Polls the wall clock until it passes `at` (epoch ms): a scenario step, e.g. "the deadline passes while the server is down". */
export function waitUntilTime(at: number): Promise<true> {
  return waitFor(`the clock to pass ${new Date(at).toISOString()}`, () => Date.now() > at, { timeoutMs: at - Date.now() + 5_000 });
}
