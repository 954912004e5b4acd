// Two pages of one thing each: an offloaded result, paged from the
// server, and the request body a turn's model call sent.
import { h, set, add, route, num, pretty, errorText } from './dom.js';
import * as api from './api.js';

const pageBytes = 16 << 10;

// resultPage shows an offloaded result a page at a time, as the server
// keeps it.
export async function resultPage(main, id, ref, signal) {
  const path = api.session(id, 'results', ref);
  let page = await api.get(`${path}?limit=${pageBytes}`, signal);
  const data = h('pre', { class: 'result-data', tabindex: 0, 'aria-label': 'The result\'s data' }, page.data);
  const shown = h('p', { class: 'muted', role: 'status' });
  const more = h('button', { type: 'button' }, 'Load more');
  const problem = h('p', { class: 'error', role: 'alert' });
  const loaded = () => {
    const end = page.next_offset ?? page.size;
    set(shown, page.next_offset === undefined ? `All ${num(page.size)} bytes are shown.` : `${num(end)} of ${num(page.size)} bytes are shown.`);
    more.hidden = page.next_offset === undefined;
  };
  more.addEventListener('click', async () => {
    set(problem);
    more.disabled = true;
    try {
      page = await api.get(`${path}?offset=${page.next_offset}&limit=${pageBytes}`, signal);
      add(data, page.data);
      loaded();
    } catch (err) {
      if (!signal.aborted) set(problem, errorText(err));
    } finally {
      more.disabled = false;
    }
  });
  add(main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Sessions'), ' / ', h('a', { href: route('s', id) }, id)),
    h('h1', { tabindex: -1 }, 'Result ', h('span', { class: 'mono' }, ref)),
    h('dl', { class: 'facts' },
      h('dt', null, 'Tool'), h('dd', null, page.tool || '—'),
      h('dt', null, 'Kind'), h('dd', null, page.kind || '—'),
      h('dt', null, 'Media type'), h('dd', null, page.media_type || '—'),
      h('dt', null, 'Size'), h('dd', null, `${num(page.size)} bytes`, page.encoding === 'base64' ? ' (not text: shown in base64)' : '')),
    shown, data, more, problem);
  loaded();
}

// requestPage shows the body the model call of a turn sent, in its
// provider's wire format.
export async function requestPage(main, id, turn, signal) {
  const r = await api.get(api.session(id, 'turns', turn, 'request'), signal);
  add(main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Sessions'), ' / ', h('a', { href: route('s', id) }, id)),
    h('h1', { tabindex: -1 }, `Request body of turn ${turn}`),
    h('p', null, `What the provider received, in the ${r.dialect} wire format, indented for reading.`),
    r.exact ? null : h('p', { class: 'note' }, 'Not byte for byte: ', r.note),
    h('nav', { class: 'turns', 'aria-label': 'Turns' },
      turn > 1 ? h('a', { href: route('s', id, 'turns', turn - 1, 'request') }, `Turn ${turn - 1}`) : null,
      ' ', h('a', { href: route('s', id, 'turns', turn + 1, 'request') }, `Turn ${turn + 1}`)),
    h('pre', { class: 'request-body', tabindex: 0, 'aria-label': 'The request body' }, pretty(r.body)));
}
