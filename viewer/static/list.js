// The first page: start a session of an agent, and the list of sessions
// with their status, filtered by status and searched by id, title and
// agent (the API's ?status= and ?q=).
import { h, set, add, route, badge, when, errorText } from './dom.js';
import * as api from './api.js';

const statuses = ['running', 'paused', 'done', 'failed'];

export async function listPage(main, query, signal) {
  const q = query.get('q') ?? '';
  const status = statuses.includes(query.get('status')) ? query.get('status') : '';
  add(main, h('h1', { tabindex: -1 }, 'Sessions'));
  add(main, startForm(signal));

  const search = h('input', { type: 'search', id: 'q', name: 'q', value: q, placeholder: 'id, title or agent' });
  const pick = h('select', { id: 'status', name: 'status' },
    h('option', { value: '' }, 'any'),
    statuses.map((s) => h('option', { value: s, selected: s === status }, s)));
  const filter = h('form', { class: 'filter', role: 'search', 'aria-label': 'Sessions' },
    h('label', { for: 'q' }, 'Search'), search,
    h('label', { for: 'status' }, 'Status'), pick,
    h('button', { type: 'submit' }, 'Filter'));
  filter.addEventListener('submit', (e) => {
    e.preventDefault();
    const p = new URLSearchParams();
    if (search.value.trim()) p.set('q', search.value.trim());
    if (pick.value) p.set('status', pick.value);
    const hash = `#/${p.size ? `?${p}` : ''}`;
    if (location.hash === hash) load();
    else location.hash = hash;
  });
  const table = h('div', { class: 'sessions' });
  add(main, h('section', { 'aria-labelledby': 'sessions-h' }, h('h2', { id: 'sessions-h' }, 'Stored sessions'), filter, table));

  // The list is read again every few seconds while a session runs.
  let timer = 0;
  signal.addEventListener('abort', () => clearTimeout(timer));
  async function load() {
    clearTimeout(timer);
    const p = new URLSearchParams({ limit: '200' });
    if (q) p.set('q', q);
    if (status) p.set('status', status);
    let res;
    try {
      res = await api.get(`/v1/sessions?${p}`, signal);
    } catch (err) {
      if (!signal.aborted) set(table, h('p', { class: 'error', role: 'alert' }, errorText(err)));
      return;
    }
    set(table, sessionsTable(res.sessions));
    if (res.sessions.some((s) => s.status === 'running' && s.live) && !signal.aborted) timer = setTimeout(load, 3000);
  }
  await load();
}

function sessionsTable(sessions) {
  if (sessions.length === 0) return h('p', { class: 'muted' }, 'No session matches.');
  return h('table', null,
    h('thead', null, h('tr', null, ['Session', 'Agent', 'Status', 'Steps', 'Updated'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', null, sessions.map((s) => h('tr', null,
      h('td', null, h('a', { href: route('s', s.id) }, s.title || s.id), s.title ? h('div', { class: 'muted mono' }, s.id) : null),
      h('td', null, s.agent),
      h('td', null, badge(s.status), s.live ? h('span', { class: 'muted' }, ' live') : null),
      h('td', { class: 'num' }, s.steps),
      h('td', null, h('time', { datetime: s.updated }, when(s.updated)))))));
}

// startForm starts a session of an agent of the server's directory.
function startForm(signal) {
  const agent = h('select', { id: 'agent', name: 'agent', required: true });
  const about = h('p', { class: 'muted', id: 'agent-about' });
  const message = h('textarea', { id: 'message', name: 'message', rows: 3, required: true, placeholder: 'What is the agent to do?' });
  const problem = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit' }, 'Start session');
  const form = h('form', { class: 'start', 'aria-labelledby': 'start-h' },
    h('h2', { id: 'start-h' }, 'Start a session'),
    h('div', { class: 'field' }, h('label', { for: 'agent' }, 'Agent'), agent, about),
    h('div', { class: 'field' }, h('label', { for: 'message' }, 'Message'), message),
    button, problem);
  agent.setAttribute('aria-describedby', 'agent-about');
  let agents = [];
  const describe = () => {
    const a = agents.find((x) => x.name === agent.value);
    const says = [];
    if (a?.description || a?.title) says.push(a.description || a.title);
    if (a?.model) says.push(`model ${a.model}`);
    if (a?.approval.length) says.push(`${a.approval.join(', ')} wait for approval`);
    set(about, says.join(' · '));
  };
  agent.addEventListener('change', describe);
  api.get('/v1/agents', signal).then((res) => {
    agents = res.agents;
    if (agents.length === 0) set(about, 'The server\'s agents directory holds no agent file.');
    set(agent, agents.map((a) => h('option', { value: a.name, disabled: !!a.error }, a.error ? `${a.name} (cannot be used: ${a.error})` : a.name)));
    const first = agents.find((a) => !a.error);
    if (first) agent.value = first.name;
    describe();
  }).catch((err) => { if (!signal.aborted) set(problem, errorText(err)); });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    set(problem);
    button.disabled = true;
    try {
      const res = await api.post('/v1/sessions', { agent: agent.value, message: message.value }, signal);
      location.hash = route('s', res.session.id);
    } catch (err) {
      if (!signal.aborted) set(problem, errorText(err));
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
