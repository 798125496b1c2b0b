// The HTML of /oauth/authorize: the login and consent form, the page shown when a request cannot
// be sent back to its application, and the popup's answer (mode=popup). Every value from the
// request or the store is escaped; the pages load nothing and may not be framed (clickjacking);
// only the popup's answer runs a script, one fixed script allowed by its hash.
import { createHash } from 'node:crypto';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text for element content and double- or single-quoted attribute values. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const CSS = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#eef2f5;
font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2730}
main{width:min(24rem,92vw);background:#fff;border-radius:10px;box-shadow:0 2px 14px rgba(0,0,0,.12);padding:1.75rem}
h1{font-size:1.3rem;margin:0 0 .75rem}
p{margin:.5rem 0}
.app{font-weight:600}
.error{background:#fdecea;color:#8a1c13;border-radius:6px;padding:.5rem .75rem}
label{display:block;margin:.9rem 0 .25rem;font-weight:500}
input{width:100%;padding:.55rem .65rem;border:1px solid #b5c0c9;border-radius:6px;font:inherit}
.actions{display:flex;gap:.6rem;margin-top:1.25rem}
button{flex:1;padding:.6rem;border-radius:6px;border:1px solid #1f6feb;background:#1f6feb;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button.secondary{background:#fff;color:#1d2730;border-color:#b5c0c9}
.where{color:#5b6873;font-size:.85rem;margin-top:1rem;word-break:break-all}
`;
const CSS_HASH = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

/**
 * The page's headers. `formAction`: where its form may lead, the redirect URI's origin (or scheme)
 * included, since browsers apply form-action to the redirect that follows the POST.
 */
export function pageHeaders(formAction?: string, scriptSrc?: string): Record<string, string> {
  const csp = [
    "default-src 'none'", `style-src ${CSS_HASH}`, ...(scriptSrc ? [`script-src ${scriptSrc}`] : []), "base-uri 'none'", "frame-ancestors 'none'",
    `form-action 'self'${formAction ? ` ${formAction}` : ''}`,
  ].join('; ');
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': csp,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    // The page's URL carries the request (state, challenge): no other site is told of it.
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    pragma: 'no-cache',
  };
}

/** The CSP source naming where a redirect URI leads: its origin, or its scheme for an app's own scheme. */
export function formActionSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

const page = (title: string, body: string, script = '') => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
${body}
</main>
${script}</body>
</html>
`;

export interface LoginForm {
  appName: string;
  /** Hidden fields that carry the authorize request to the POST (client_id, redirect_uri, state, ...). */
  hidden: Record<string, string | undefined>;
  csrfToken: string;
  username?: string;
  error?: string;
  /** Where the user returns: shown so they can tell which site asks. */
  returnTo: string;
}

export function loginPage(form: LoginForm): string {
  const hidden = Object.entries({ ...form.hidden, _csrf: form.csrfToken })
    .filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '')
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
  const app = `<span class="app">${escapeHtml(form.appName)}</span>`;
  return page(`Sign in to ${form.appName}`, `<h1>Sign in</h1>
<p>${app} would like to use your account. Once you sign in, it can read and update your location, places, layers and triggers on your behalf.</p>
${form.error ? `<p class="error" role="alert">${escapeHtml(form.error)}</p>` : ''}
<form method="post" action="authorize">
${hidden}
<label for="username">Username or email</label>
<input id="username" name="username" autocomplete="username" autocapitalize="none" required autofocus value="${escapeHtml(form.username ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions">
<button type="submit" name="decision" value="allow">Sign in and allow</button>
<button type="submit" name="decision" value="deny" class="secondary" formnovalidate>Deny</button>
</div>
</form>
<p class="where">You will return to ${escapeHtml(form.returnTo)}</p>`);
}

/** A request that cannot go back to an application (RFC 6749 §4.1.2.1): said here, never redirected. */
export function errorPage(message: string): string {
  return page('Cannot sign in', `<h1>Cannot sign in</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p>Return to the application you came from and try again.</p>`);
}

/**
 * The popup's script: it posts the answer to the page that opened the popup, to the redirect URI's
 * origin only (a page of any other origin that opened it gets nothing), then closes the popup.
 * Opened without an opener, it goes to the redirect URI as the redirect would have.
 */
const POPUP_SCRIPT = `(function () {
  var data = JSON.parse(document.getElementById('popup-answer').textContent);
  if (window.opener && window.opener !== window) {
    window.opener.postMessage(data.message, data.origin);
    window.close();
  } else {
    window.location.replace(data.fallback);
  }
})();`;
export const POPUP_SCRIPT_HASH = `'sha256-${createHash('sha256').update(POPUP_SCRIPT).digest('base64')}'`;

/** JSON inside a script element: `<` escaped so that no `</script>` can end it. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export interface PopupAnswer {
  /** The string posted to the opener (geoloqi-js parses it: `{"oauth":{"auth":…}}` or `{"oauth":{"error":…}}`). */
  message: string;
  /** The only origin it is posted to: the redirect URI's. */
  origin: string;
  /** Where to go when there is no opener: the redirect the flow would have made. */
  fallback: string;
  /** Said on the page while it closes. */
  text: string;
}

/** The answer of mode=popup: headers allow exactly POPUP_SCRIPT (pageHeaders(undefined, POPUP_SCRIPT_HASH)). */
export function popupPage(answer: PopupAnswer): string {
  const data = scriptJson({ message: answer.message, origin: answer.origin, fallback: answer.fallback });
  return page('Signing in', `<h1>Signing in</h1>
<p>${escapeHtml(answer.text)}</p>
<p class="where">You may close this window.</p>`, `<script type="application/json" id="popup-answer">${data}</script>
<script>${POPUP_SCRIPT}</script>
`);
}
