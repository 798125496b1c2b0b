// The live notes of GET /1/inspector/events, read with fetch so the token travels in the
// Authorization header (EventSource cannot set one). Reconnects after a drop until stopped.
import { useEffect, useRef, useState } from 'preact/hooks';
import { authHeaders } from './api';

export interface LiveHandle {
  stop(): void;
}

export function watchUser(userId: string, onNote: () => void, onStatus: (live: boolean) => void): LiveHandle {
  const abort = new AbortController();
  let stopped = false;
  const run = async () => {
    while (!stopped) {
      try {
        const res = await fetch(`/1/inspector/events?user_id=${encodeURIComponent(userId)}`, { headers: authHeaders(), signal: abort.signal });
        if (!res.ok || !res.body) throw new Error(`events: ${res.status}`);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            if (event === 'ready') onStatus(true);
            else if (event === 'location') onNote();
          }
        }
      } catch {
        /* dropped or refused: wait and try again */
      }
      onStatus(false);
      if (!stopped) await new Promise((r) => setTimeout(r, 2000));
    }
  };
  void run();
  return {
    stop() {
      stopped = true;
      abort.abort();
    },
  };
}

/**
 * Reads a view's data now and again whenever the user's points are stored (the live notes): one
 * read at a time, and notes that arrive meanwhile cause one more. Answers whether the stream is up.
 */
export function useLive(userId: string, read: () => Promise<void>, onError: (message: string) => void): boolean {
  const [live, setLive] = useState(false);
  const latest = useRef(read);
  latest.current = read;
  useEffect(() => {
    let busy = false;
    let again = false;
    let stopped = false;
    const schedule = () => {
      if (stopped) return;
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      latest.current()
        .catch((e: Error) => !stopped && onError(e.message))
        .finally(() => {
          busy = false;
          if (again) {
            again = false;
            schedule();
          }
        });
    };
    schedule();
    const handle = watchUser(userId, schedule, setLive);
    return () => {
      stopped = true;
      handle.stop();
    };
  }, [userId]);
  return live;
}
