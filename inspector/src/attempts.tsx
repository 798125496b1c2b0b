// A callback firing's delivery forensics in the pair view: every attempt (time, duration, status
// or error class, the start of the receiver's answer) from GET /1/trigger/history/attempts, and a
// button that redelivers it (POST /1/trigger/history/redeliver, same event id) with its outcome.
// Everything is rendered as text.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from './api';

interface Attempt {
  attempt: number; date: string; date_ts: number; duration_ms: number; outcome: 'delivered' | 'retry' | 'dead';
  status_code?: number; error_class?: string; error?: string; body?: string; redelivery?: { requested_by: string };
}
interface Delivery { status: string; attempts: number; delivered_at?: string; last_error?: string; redelivery?: { requested_at: string; requested_by: string } }
interface AttemptList { event_id: string; type: string; url?: string; delivery?: Delivery; attempts: Attempt[]; paging: { total: number } }
interface Redelivered { result: 'sent' | 'queued' | 'failed'; delivery: Delivery; attempt?: Attempt }

const when = (d: string) => d.replace('T', ' ').replace(/\.\d+/, '');
const OUTCOMES: Record<Redelivered['result'], string> = {
  sent: 'Redelivered: the receiver took it.',
  queued: 'Redelivery attempted and failed; the retry schedule goes on.',
  failed: 'Redelivery failed: the callback is dead again.',
};

function answerOf(a: Attempt): string {
  const parts = [a.status_code !== undefined ? `HTTP ${a.status_code}` : a.error_class ?? 'error'];
  if (a.error && a.status_code === undefined) parts.push(a.error);
  return parts.join(' · ');
}

/** The attempts of one firing and its redeliver action; `refreshed` reads them again, `onChanged` is told of a redelivery. */
export function FiringAttempts({ eventId, refreshed, onChanged }: { eventId: string; refreshed: number; onChanged?: () => void }) {
  const [list, setList] = useState<AttemptList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ text: string; result: string } | null>(null);

  const load = () => api.get<AttemptList>('trigger/history/attempts', { event_id: eventId, limit: 100 }).then(setList, (e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, [eventId, refreshed]);

  const redeliver = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      const r = await api.post<Redelivered>('trigger/history/redeliver', { event_id: eventId, requested_by: 'inspector' });
      setOutcome({ result: r.result, text: OUTCOMES[r.result] });
    } catch (e) {
      setOutcome({ result: 'refused', text: e instanceof ApiError ? `Refused: ${e.message}` : String(e) });
    } finally {
      setBusy(false);
      await load();
      onChanged?.();
    }
  };

  if (error) return <p class="error">{error}</p>;
  if (!list) return <p class="muted">Loading attempts…</p>;
  const d = list.delivery;
  const finished = d?.status === 'delivered' || d?.status === 'dead';
  return (
    <section class="attempts" data-event={eventId}>
      <p class="attempts-head">
        <span>{list.url ?? list.type}</span>
        {d ? <span class="badge" data-status={d.status}> {d.status}{d.delivered_at ? ` at ${when(d.delivered_at)}` : ''}</span> : null}
      </p>
      {list.attempts.length === 0 ? <p class="muted">No HTTP attempt: {list.type === 'message' ? 'a message goes to the phone.' : 'not sent yet.'}</p> : (
        <table class="attempt-list">
          <thead><tr><th>#</th><th>when</th><th>took</th><th>outcome</th><th>answer</th><th>body start</th></tr></thead>
          <tbody>
            {list.attempts.map((a) => (
              <tr key={a.attempt} data-outcome={a.outcome} data-status={a.status_code ?? ''} data-redelivery={a.redelivery ? a.redelivery.requested_by : undefined}>
                <td>{a.attempt}</td>
                <td>{when(a.date)}</td>
                <td>{a.duration_ms} ms</td>
                <td>{a.outcome}{a.redelivery ? ` (redelivery, ${a.redelivery.requested_by})` : ''}</td>
                <td>{answerOf(a)}</td>
                <td class="body-start">{a.body ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {d ? (
        <p class="redeliver">
          <button type="button" class="redeliver-button" disabled={busy || !finished} onClick={() => void redeliver()}>
            {busy ? 'Redelivering…' : 'Redeliver'}
          </button>{' '}
          {!finished ? <span class="muted">Still being delivered.</span> : null}
          {outcome ? <span class="redeliver-outcome" data-result={outcome.result}>{outcome.text}</span> : null}
        </p>
      ) : null}
    </section>
  );
}
