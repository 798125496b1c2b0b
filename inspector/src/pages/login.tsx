// Log in with an application access token; it is kept in this tab's session only.
import { useState } from 'preact/hooks';

export function LoginPage({ onLogin }: { onLogin: (token: string) => Promise<void> }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onLogin(token.trim());
    } catch (err) {
      setError(`This token was refused: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="login" onSubmit={submit}>
      <h1>geotrigger inspector</h1>
      <p>Log in with an <em>application</em> access token (<code>app-…</code>). It stays in this tab's session and is sent in the Authorization header only.</p>
      <label>
        Application token
        <input id="token" type="password" autocomplete="off" value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} required />
      </label>
      <button type="submit" disabled={busy || token.trim() === ''}>Log in</button>
      {error ? <p class="error" role="alert">{error}</p> : null}
    </form>
  );
}
