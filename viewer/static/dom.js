// DOM helpers. Everything a tool, a model or a person wrote reaches the
// page through these, as text nodes and attribute values: never as markup.

// h returns a new element: h('p', {class: 'x'}, 'text', child, [more]).
// A string or a number child becomes a text node; a null, undefined or
// false child is skipped; arrays are flattened. Attributes are set with
// setAttribute (true sets an empty one; null, undefined and false none),
// and a function under a name starting with "on" is an event listener.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  return add(el, ...children);
}

// add appends children to el as h does, and returns el.
export function add(el, ...children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// set replaces el's children.
export function set(el, ...children) {
  el.replaceChildren();
  return add(el, ...children);
}

// link returns a link to a route of the viewer: its path segments are
// URI-encoded, so no value can make it another kind of URL.
export function link(text, ...segments) {
  return h('a', { href: route(...segments) }, text);
}

// route is the hash of the viewer's route made of segments.
export function route(...segments) {
  return '#/' + segments.map((s) => encodeURIComponent(String(s))).join('/');
}

const numbers = new Intl.NumberFormat('en');

// num writes a whole number with thousands separators.
export function num(n) {
  return numbers.format(n ?? 0);
}

// ms writes a duration given in milliseconds.
export function ms(v) {
  if (v === undefined || v === null) return '';
  if (v < 1) return `${v.toFixed(2)} ms`;
  if (v < 1000) return `${Math.round(v)} ms`;
  if (v < 60000) return `${(v / 1000).toFixed(2)} s`;
  return `${Math.floor(v / 60000)} min ${Math.round((v % 60000) / 1000)} s`;
}

// when writes a time of the API (RFC 3339) in the reader's locale.
export function when(t) {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? String(t ?? '') : d.toLocaleString();
}

// pretty writes a JSON value indented, or a string as it is.
export function pretty(v) {
  if (typeof v === 'string') return v;
  return JSON.stringify(v, null, 2);
}

// badge returns a status badge.
export function badge(status) {
  return h('span', { class: `badge s-${String(status).replace(/[^a-z_]/g, '')}` }, status);
}

// errorText says what an error was, for a person.
export function errorText(err) {
  return err?.message || String(err);
}
