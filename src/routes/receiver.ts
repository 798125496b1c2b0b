// GET /js/receiver.html: the cross-domain receiver geoloqi-js loads in a hidden iframe from
// <api>/js/receiver.html. The page is this project's own. Through easyXDM (npm `easyxdm`, served
// at /js/easyXDM.js) it takes the client's requests, JSON strings
//   {"method","path","args","accessToken","callbackId", "sdkVersion", ...}
// sends each to this service's /1/<path> (args as the JSON body of a POST, or added to the query
// string of a GET; the token as `Authorization: OAuth`), and answers with a JSON string
//   {"callbackId", "response": <body text> | "error": <body text>, "headers": <header lines>}
// where a status under 400, or 409, is a response and anything else an error, as the client reads it.
// A path that would leave /1/ (`../`, in any encoding, or another origin) is refused with a 400 in
// the API's error shape and sent nowhere: the receiver carries the client's token, and is an API
// client, not a way to the service's other pages.
//
// The pages are not API answers: no CORS headers (http/pages.ts). The receiver is framed by
// applications' pages on any origin, so it may be framed; its CSP lets it run its two scripts and
// call the API, nothing else.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { RouteApp } from './route-app.js';
import { PAGE_CONFIG } from '../http/pages.js';

const RECEIVER_VERSION = '1.0.0';

/**
 * The API the receiver calls: /1/ under PUBLIC_URL when it is set, as every absolute URL the
 * service hands out (http/public-url.ts); else the /1/ beside the page (/js/receiver.html → /1/),
 * under whatever prefix the page was reached at, which the browser, not a Host header, says.
 */
const apiBase = (publicUrl: string | undefined) => (publicUrl ? `new URL(${JSON.stringify(`${publicUrl}/1/`)})` : "new URL('../1/', location.href)");

// The client's SDK fields become the X-LQ-* headers the historical receiver sent (the API ignores them).
const receiverScript = (publicUrl: string | undefined) => `(function () {
  'use strict';
  var api = ${apiBase(publicUrl)};
  var REFUSED_PATH = JSON.stringify({ error_code: 400, error: 'invalid_request', error_description: 'The path must name an API method under /1/' });
  var sdkHeaders = { sdkVersion: 'X-LQ-SDK-Version', sdkBuild: 'X-LQ-SDK-Build', packageName: 'X-LQ-Package-Name', packageVersion: 'X-LQ-Package-Version' };

  function query(args) {
    var parts = [];
    for (var k in args) if (Object.prototype.hasOwnProperty.call(args, k) && args[k] !== undefined && args[k] !== null) {
      var v = args[k];
      parts.push(encodeURIComponent(k) + '=' + encodeURIComponent(typeof v === 'object' ? JSON.stringify(v) : String(v)));
    }
    return parts.join('&');
  }

  // The URL of an API method, or null for a path that leaves /1/: the URL parser resolves ../ and
  // its encoded forms (%2e%2e, backslashes) first; an encoded slash, dot or backslash that is left
  // could still be read as one further on, so it is refused too.
  function methodUrl(path) {
    var url;
    try { url = new URL(String(path || '').replace(/^[\\/\\\\]+/, ''), api); } catch (e) { return null; }
    if (url.origin !== api.origin || url.pathname.indexOf(api.pathname) !== 0) return null;
    if (/%(2e|2f|5c)/i.test(url.pathname)) return null;
    return url.href;
  }

  function execute(request, done) {
    var method = request.method === 'POST' ? 'POST' : 'GET';
    var url = methodUrl(request.path);
    if (url === null) return done({ headers: '', error: REFUSED_PATH });
    if (method === 'GET' && request.args && typeof request.args === 'object') {
      var q = query(request.args);
      if (q) url += (url.indexOf('?') < 0 ? '?' : '&') + q;
    }
    var xhr = new XMLHttpRequest();
    xhr.open(method, url, true);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('X-LQ-JS-Receiver-Version', '${RECEIVER_VERSION}');
    for (var field in sdkHeaders) if (typeof request[field] === 'string' && request[field]) xhr.setRequestHeader(sdkHeaders[field], request[field]);
    if (typeof request.accessToken === 'string' && request.accessToken) xhr.setRequestHeader('Authorization', 'OAuth ' + request.accessToken);
    xhr.onreadystatechange = function () {
      if (xhr.readyState !== 4) return;
      var payload = { headers: xhr.getAllResponseHeaders() };
      var text = xhr.responseText || '{"error_code":' + (xhr.status || 500) + ',"error":"unknown_error","error_description":"No answer from the API"}';
      if (xhr.status !== 0 && (xhr.status < 400 || xhr.status === 409)) payload.response = text;
      else payload.error = text;
      done(payload);
    };
    if (method === 'POST') {
      xhr.setRequestHeader('Content-Type', 'application/json');
      xhr.send(JSON.stringify(request.args === undefined ? {} : request.args));
    } else {
      xhr.send();
    }
  }

  var socket = new easyXDM.Socket({
    onMessage: function (message, origin) {
      var request;
      try { request = JSON.parse(message); } catch (e) { return; }
      if (!request || typeof request !== 'object') return;
      execute(request, function (payload) {
        payload.callbackId = request.callbackId;
        socket.postMessage(JSON.stringify(payload), origin);
      });
    }
  });
})();
`;

const RECEIVER_PAGE = `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>API receiver</title>
<script src="easyXDM.js"></script>
<script src="receiver.js"></script>
</head>
<body></body>
</html>
`;

/** The npm build of easyXDM is a CommonJS module; in the page it defines the `easyXDM` global. */
function easyXdmScript(): string {
  const source = readFileSync(createRequire(import.meta.url).resolve('easyxdm/lib/easyXDM.js'), 'utf8');
  return `(function () {\nvar module = { exports: {} };\n${source}\nwindow.easyXDM = module.exports;\n})();\n`;
}

/** The receiver's CSP: its own scripts, calls to the API; no plugins, no base, no forms. Framing is its purpose. */
const receiverCsp = (publicUrl: string | undefined) =>
  `default-src 'none'; script-src 'self'; connect-src 'self'${publicUrl ? ` ${new URL(publicUrl).origin}` : ''}; base-uri 'none'; form-action 'none'`;

export async function receiverRoutes(app: RouteApp) {
  const { publicUrl } = app.ctx.config;
  const easyXdm = easyXdmScript();
  const script = receiverScript(publicUrl);
  const headers = { 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' };
  const page = { ...headers, 'content-security-policy': receiverCsp(publicUrl) };
  const options = { schema: { hide: true }, config: PAGE_CONFIG };
  app.get('/js/receiver.html', options, async (_request, reply) => reply.headers(page).type('text/html; charset=utf-8').send(RECEIVER_PAGE));
  app.get('/js/receiver.js', options, async (_request, reply) => reply.headers(headers).type('text/javascript; charset=utf-8').send(script));
  app.get('/js/easyXDM.js', options, async (_request, reply) => reply.headers(headers).type('text/javascript; charset=utf-8').send(easyXdm));
}
