// The viewer's entry: a router over the location's hash, and the token
// form. Each page gets an AbortSignal that ends its requests and its
// event stream when another page is shown.
import { h, set, add, errorText } from './dom.js';
import * as api from './api.js';
import { listPage } from './list.js';
import { sessionPage } from './session.js';
import { resultPage, requestPage } from './pages.js';

const main = document.getElementById('main');
const tokenForm = document.getElementById('token-form');
const tokenInput = document.getElementById('token-input');
let shown = null; // the AbortController of the page shown

// segments are the path of the hash route, decoded: #/s/ID → ['s', ID].
function segments() {
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').filter((s) => s !== '');
  try {
    return { parts: parts.map(decodeURIComponent), query: new URLSearchParams(query ?? '') };
  } catch {
    return { parts: ['?'], query: new URLSearchParams() };
  }
}

async function show(moved) {
  shown?.abort();
  shown = new AbortController();
  const signal = shown.signal;
  const { parts, query } = segments();
  set(main);
  try {
    const [kind, id, sub, arg, leaf] = parts;
    if (parts.length === 0) await listPage(main, query, signal);
    else if (kind === 's' && id && !sub) await sessionPage(main, id, signal);
    else if (kind === 's' && sub === 'results' && arg && !leaf) await resultPage(main, id, arg, signal);
    else if (kind === 's' && sub === 'turns' && /^\d+$/.test(arg ?? '') && leaf === 'request') await requestPage(main, id, Number(arg), signal);
    else set(main, h('h1', null, 'No such page'), h('p', null, h('a', { href: '#/' }, 'Back to the sessions')));
  } catch (err) {
    if (signal.aborted) return;
    add(main, h('p', { class: 'error', role: 'alert' }, errorText(err)), h('p', null, h('a', { href: '#/' }, 'Back to the sessions')));
  }
  // After a move to another page, focus goes to its heading, so that a
  // screen reader reads where the reader is; not on the first load.
  if (!signal.aborted && moved) main.querySelector('h1')?.focus();
}

api.onUnauthorized(() => {
  tokenForm.hidden = false;
  tokenInput.focus();
});

tokenForm.addEventListener('submit', (e) => {
  e.preventDefault();
  api.setToken(tokenInput.value.trim());
  tokenInput.value = '';
  tokenForm.hidden = true;
  show(false);
});

window.addEventListener('hashchange', () => show(true));
show(false);
