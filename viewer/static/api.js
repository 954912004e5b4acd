// The API client: JSON requests and the event stream, each with the
// token when one was given. The token is kept in sessionStorage, so it
// lasts as long as the tab and is never written into a URL.

const tokenKey = 'toolwire.token';

export function token() {
  return sessionStorage.getItem(tokenKey) ?? '';
}

export function setToken(t) {
  if (t) sessionStorage.setItem(tokenKey, t);
  else sessionStorage.removeItem(tokenKey);
}

// An APIError is an answer with an error: its status, the API's code and
// its message (docs/api.md lists them).
export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let unauthorized = () => {};

// onUnauthorized sets what to do when the server asks for its token.
export function onUnauthorized(f) {
  unauthorized = f;
}

function headers(extra) {
  const hd = { ...extra };
  const t = token();
  if (t) hd.Authorization = `Bearer ${t}`;
  return hd;
}

async function failure(r) {
  let e = {};
  try {
    e = (await r.json()).error ?? {};
  } catch {
    // not the API's error shape: a proxy's page, say
  }
  if (r.status === 401) unauthorized();
  return new APIError(r.status, e.code ?? '', e.message ?? `the server answered ${r.status} ${r.statusText}`);
}

// call sends a request to path and returns the JSON of its answer (null
// for 204), or throws an APIError.
export async function call(method, path, body, signal) {
  const init = { method, headers: headers({ Accept: 'application/json' }), cache: 'no-store', signal };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const r = await fetch(path, init);
  if (!r.ok) throw await failure(r);
  return r.status === 204 ? null : r.json();
}

export const get = (path, signal) => call('GET', path, undefined, signal);
export const post = (path, body, signal) => call('POST', path, body, signal);

// session is the API path of a session, or of one of its routes.
export function session(id, ...rest) {
  return ['/v1/sessions', id, ...rest].map((s, i) => (i === 0 ? s : encodeURIComponent(String(s)))).join('/');
}

// follow reads the server-sent events of path until signal aborts, with
// fetch rather than EventSource, which cannot send the token. When the
// connection drops it connects again after the server's retry delay with
// Last-Event-ID, so that no event is missed or repeated. onEvent gets
// {type, data (parsed JSON), id}; onState gets 'open', 'retrying' (with
// the error) or 'closed' (the server ended the stream for good, or
// refused it: with the error).
export async function follow(path, { signal, onEvent, onState }) {
  let last = '';
  let retry = 2000;
  while (!signal.aborted) {
    let err = null;
    try {
      const hd = headers({ Accept: 'text/event-stream' });
      if (last) hd['Last-Event-ID'] = last;
      const r = await fetch(path, { headers: hd, cache: 'no-store', signal });
      if (!r.ok) {
        err = await failure(r);
        if (r.status !== 429 && r.status < 500) {
          onState('closed', err);
          return;
        }
      } else {
        onState('open');
        for await (const ev of events(r.body)) {
          if (ev.retry) retry = ev.retry;
          if (ev.id) last = ev.id;
          if (ev.data === undefined) continue;
          let data;
          try {
            data = JSON.parse(ev.data);
          } catch {
            data = { message: ev.data };
          }
          onEvent({ type: ev.type, data, id: ev.id });
        }
      }
    } catch (e) {
      if (signal.aborted) return;
      err = e;
    }
    if (signal.aborted) return;
    onState('retrying', err);
    await sleep(retry, signal);
  }
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });
}

// events parses a text/event-stream body: it yields {type, data, id,
// retry} for each event, as the HTML standard reads them.
export async function* events(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let ev = { type: '', data: undefined, id: '', retry: 0 };
  try {
    for (let done = false; !done;) {
      const r = await reader.read();
      done = r.done;
      if (!done) buf += r.value;
      let nl;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        // A \r at the end may be the first half of \r\n: wait for more.
        if (buf[nl] === '\r' && nl === buf.length - 1 && !done) break;
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (ev.data !== undefined || ev.retry) yield { ...ev, type: ev.type || 'message' };
          ev = { type: '', data: undefined, id: ev.id, retry: 0 };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        switch (field) {
          case 'event': ev.type = value; break;
          case 'data': ev.data = ev.data === undefined ? value : `${ev.data}\n${value}`; break;
          case 'id': if (!value.includes('\0')) ev.id = value; break;
          case 'retry': if (/^\d+$/.test(value)) ev.retry = Number(value); break;
        }
      }
    }
    // At the end, an event without its blank line is dropped, as the
    // standard says.
  } finally {
    reader.releaseLock();
  }
}
