// The inspector's shell: login, then hash routes (#/ map, #/user/U, #/pair/U/T/P, #/replay, and
// #/replay/U/T/P: a pair's what-if). The token lives in sessionStorage only and goes in the
// Authorization header (api.ts).
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, loadSettings, session, type Settings } from './api';
import { loadAppData, type AppData } from './data';
import { LoginPage } from './pages/login';
import { MapPage } from './pages/map-page';
import { PairPage } from './pages/pair';
import { ReplayPage } from './pages/replay';
import { UserPage } from './pages/user';
import './style.css';

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function App() {
  const [token, setToken] = useState(session.token());
  const [settings, setSettings] = useState<Settings | null>(null);
  const [data, setData] = useState<AppData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const hash = useHash();

  const reload = async () => {
    try {
      setData(await loadAppData());
      setError(null);
    } catch (e) {
      if (e instanceof ApiError && (e.status === 401 || e.status === 403)) logout();
      else setError((e as Error).message);
    }
  };

  useEffect(() => {
    loadSettings().then(setSettings, (e: Error) => setError(`Could not read the inspector's settings: ${e.message}`));
  }, []);
  useEffect(() => {
    if (token) void reload();
  }, [token]);

  const login = async (t: string) => {
    // An application token can list the users; a user token cannot.
    await api.get('user/list', { limit: 1 }, t);
    session.set(t);
    setToken(t);
  };
  const logout = () => {
    session.clear();
    setToken(null);
    setData(null);
  };

  if (!token) return <LoginPage onLogin={login} />;
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  let page;
  if (error) page = <p class="error">{error}</p>;
  else if (!settings || !data) page = <p class="muted">Loading…</p>;
  else if (parts[0] === 'user' && parts[1]) page = <UserPage key={parts[1]} userId={parts[1]} data={data} settings={settings} />;
  else if (parts[0] === 'pair' && parts[3]) page = <PairPage key={parts.join('/')} userId={parts[1]} triggerId={parts[2]} placeId={parts[3]} data={data} settings={settings} />;
  else if (parts[0] === 'replay') page = <ReplayPage key={parts.join('/')} data={data} settings={settings} preset={{ userId: parts[1] || undefined, triggerId: parts[2] || undefined, placeId: parts[3] || undefined }} />;
  else page = <MapPage data={data} settings={settings} />;
  return (
    <>
      <header>
        <strong>geotrigger inspector</strong>
        <nav>
          <a href="#/" class={parts[0] === '' ? 'active' : ''}>Map</a>
          <a href="#/replay" class={parts[0] === 'replay' ? 'active' : ''}>Replay</a>
        </nav>
        <span class="spacer" />
        <button type="button" onClick={() => void reload()}>Reload</button>
        <button type="button" id="logout" onClick={logout}>Log out</button>
      </header>
      <main>{page}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
