// The session page: the session's turns as a timeline, built from its
// event stream (docs/api.md lists the events): the stored events first,
// then, while a run goes on, the live ones as they come. Approvals,
// resuming and continuing with a message are here too.
import { h, set, add, route, badge, num, ms, when, pretty, errorText } from './dom.js';
import * as api from './api.js';

export async function sessionPage(main, id, signal) {
  const view = await api.get(api.session(id), signal);
  if (view.gateway_record) {
    recordPage(main, view);
    return;
  }
  new SessionPage(main, id, view, signal).follow();
}

// recordPage shows a session that holds toolwire gateway's record of a
// request it repaired, rejected or shaped (docs/gateway.md): what the
// body broke, what the gateway did, and the diff of the body sent
// against the body received. It has no turns and no events.
function recordPage(main, view) {
  const s = view.session;
  const r = view.gateway_record;
  const list = (items, row) => h('ul', { class: 'record-list' }, items.map(row));
  add(main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Sessions')),
    h('h1', { tabindex: -1 }, s.title || s.id),
    h('dl', { class: 'facts' },
      h('dt', null, 'Verdict'), h('dd', { id: 'record-verdict', 'data-verdict': r.verdict }, badge(r.verdict), ` (policy ${r.policy})`),
      h('dt', null, 'Request'), h('dd', { class: 'mono' }, `${r.method} ${r.path}`),
      h('dt', null, 'Dialect'), h('dd', null, r.dialect, r.model ? ` · ${r.model}` : ''),
      h('dt', null, 'Bodies'), h('dd', null, `${num(r.bytes_in)} bytes received`, r.bytes_out ? `, ${num(r.bytes_out)} bytes sent` : '', r.status ? ` · answered ${r.status}` : ''),
      h('dt', null, 'Session'), h('dd', { class: 'mono' }, s.id),
      h('dt', null, 'Recorded'), h('dd', null, h('time', { datetime: s.created }, when(s.created)))),
    r.message ? h('p', { class: 'error' }, r.message) : null,
    h('section', { class: 'record', 'aria-labelledby': 'violations-h' },
      h('h2', { id: 'violations-h' }, `Violations (${(r.violations ?? []).length})`),
      list(r.violations ?? [], (v) => h('li', { class: 'violation', 'data-rule': v.rule },
        h('span', { class: 'mono' }, v.rule), ' at ', h('span', { class: 'mono' }, v.path || '—'), v.warning ? ' (warning)' : '', h('p', null, v.message)))),
    (r.changes ?? []).length ? h('section', { class: 'record', 'aria-labelledby': 'changes-h' },
      h('h2', { id: 'changes-h' }, r.verdict === 'rejected' ? 'Repairs it would have made' : 'Repairs'),
      list(r.changes, (c) => h('li', { class: 'change', 'data-rule': c.rule },
        h('span', { class: 'mono' }, `${c.rule} ${c.action}`), ' at ', h('span', { class: 'mono' }, c.path || '—'), h('p', null, c.reason)))) : null,
    (r.shaped ?? []).length ? h('section', { class: 'record', 'aria-labelledby': 'shaped-h' },
      h('h2', { id: 'shaped-h' }, `Shaped results (${r.reads ?? 0} read_result rounds answered)`),
      list(r.shaped, (line) => h('li', { class: 'mono' }, line))) : null,
    (r.diff ?? []).length ? h('section', { class: 'record', 'aria-labelledby': 'diff-h' },
      h('h2', { id: 'diff-h' }, 'Diff (received → sent)'),
      h('pre', { class: 'diff' }, r.diff.map((d) => h('span', { class: d.op === '+' ? 'added' : 'removed' }, `${d.op} ${d.path} ${d.value}\n`)))) : null);
}

class SessionPage {
  constructor(main, id, view, signal) {
    this.id = id;
    this.signal = signal;
    this.window = view.window;
    this.turns = new Map();
    this.calls = new Map();
    this.facts = h('dl', { class: 'facts' });
    this.conn = h('p', { class: 'conn muted', role: 'status' });
    this.approvals = h('section', { class: 'approvals', hidden: true, 'aria-labelledby': 'approvals-h' });
    this.timeline = h('ol', { class: 'timeline', 'aria-label': 'Timeline' });
    this.actions = h('div', { class: 'actions' });
    this.actionsFor = '';
    add(main,
      h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Sessions')),
      h('h1', { tabindex: -1 }, view.session.title || view.session.id),
      this.facts, this.conn, this.approvals, this.timeline, this.actions);
    this.showSession(view.session);
    if (view.session.status === 'paused') this.later('approvals', () => this.loadApprovals());
  }

  // follow reads the session's events from the first, and waits for the
  // next run's (?follow=true) until the page is left.
  follow() {
    api.follow(`${api.session(this.id, 'events')}?follow=true`, {
      signal: this.signal,
      onEvent: (ev) => this.apply(ev),
      onState: (state, err) => {
        this.conn.dataset.state = state;
        if (state === 'open') {
          set(this.conn, 'Following the session: events appear as the run goes on.');
          if (this.opened) this.refresh(); // what changed while the stream was cut
          this.opened = true;
        }
        else if (state === 'retrying') set(this.conn, 'The event stream was cut', err ? ` (${errorText(err)})` : '', '; connecting again…');
        else set(this.conn, 'The event stream ended: ', errorText(err));
      },
    });
  }

  // later runs f once after the events that arrive together are shown.
  later(key, f) {
    this.pending ??= new Map();
    if (this.pending.has(key)) return;
    this.pending.set(key, setTimeout(() => {
      this.pending.delete(key);
      if (!this.signal.aborted) f().catch((err) => this.problem(err));
    }, 50));
  }

  problem(err) {
    if (!this.signal.aborted) add(this.timeline, h('li', { class: 'item error', role: 'alert' }, errorText(err)));
  }

  showSession(s) {
    this.last = s;
    this.status = s.status;
    this.live = s.live;
    set(this.facts,
      h('dt', null, 'Status'), h('dd', { id: 'session-status', 'data-status': s.status }, badge(s.status), s.live ? ' (a run goes on)' : ''),
      h('dt', null, 'Agent'), h('dd', null, s.agent || '—'),
      s.model ? [h('dt', null, 'Model'), h('dd', { class: 'mono' }, s.model)] : null,
      h('dt', null, 'Session'), h('dd', { class: 'mono' }, s.id),
      h('dt', null, 'Steps'), h('dd', null, `${s.steps} steps, ${s.messages} messages`),
      h('dt', null, 'Updated'), h('dd', null, h('time', { datetime: s.updated }, when(s.updated))));
    this.showActions();
  }

  refresh() {
    this.later('session', async () => this.showSession((await api.get(api.session(this.id), this.signal)).session));
  }

  // apply shows one event.
  apply({ type, data: d }) {
    switch (type) {
      case 'message': this.message(d); break;
      case 'turn': this.turn(d.turn).waiting(); break;
      case 'text': this.turn(d.turn).append(d.text); break;
      case 'model_call': this.turn(d.turn).model(d, this.window); break;
      case 'assistant': this.turn(d.turn).said(d); break;
      case 'tool_call': this.call(d.turn, d.call_id, d.tool, d); break;
      case 'tool_start': this.call(d.turn, d.call_id, d.tool).start(d); break;
      case 'tool_done': this.call(d.turn, d.call_id, d.tool).done(d); break;
      case 'tool_result': this.call(d.turn, d.call_id, d.tool).result(d); break;
      case 'decision': this.call(d.turn, d.call_id, d.tool).decided(d); break;
      case 'approval':
        // The session may have paused before the page read it: read it
        // again, as after the other events that change its status.
        this.refresh();
        this.later('approvals', () => this.loadApprovals());
        break;
      case 'done': this.end(d); break;
      case 'error': add(this.timeline, h('li', { class: 'item error', role: 'alert' }, d.message)); break;
      case 'idle':
        for (const t of this.turns.values()) t.settle();
        this.showSession({ ...this.last, status: d.status, live: false });
        this.refresh();
        if (d.status === 'paused') this.later('approvals', () => this.loadApprovals());
        break;
    }
  }

  message(d) {
    if (d.role === 'system') {
      add(this.timeline, h('li', { class: 'item prompt system' },
        h('details', null, h('summary', null, 'System prompt'), h('p', { class: 'said' }, d.text))));
      return;
    }
    add(this.timeline, h('li', { class: `item prompt ${d.role === 'user' ? 'user' : ''}` },
      h('span', { class: 'who' }, d.role === 'user' ? 'Person' : d.role), h('p', { class: 'said' }, d.text)));
  }

  turn(n) {
    let t = this.turns.get(n);
    if (!t) {
      t = new Turn(this.id, n);
      this.turns.set(n, t);
      add(this.timeline, t.el);
    }
    return t;
  }

  call(turn, id, tool, d) {
    const key = `${turn}/${id}`;
    let c = this.calls.get(key);
    if (!c) {
      c = new Call(this.id, d ?? { call_id: id, tool, args: {} });
      this.calls.set(key, c);
      add(this.turn(turn).calls, c.el);
    }
    return c;
  }

  end(d) {
    this.status = d.status;
    for (const t of this.turns.values()) t.settle();
    add(this.timeline, h('li', { class: `item end ${d.status === 'failed' ? 'failed' : ''}` },
      h('h2', null, d.status === 'failed' ? 'The run failed' : 'The run ended'),
      h('p', null, d.message, ` (${d.reason})`),
      d.output !== undefined ? h('pre', null, pretty(d.output)) : null,
      h('p', { class: 'muted' }, `${d.turns} turns · ${num(d.usage.input_tokens)} tokens in, ${num(d.usage.output_tokens)} out`)));
    this.refresh();
  }

  // showActions offers what the session's state allows: resume a run a
  // crash or a shutdown stopped, or continue an ended one with a message.
  showActions() {
    const kind = this.live ? 'live' : this.status;
    if (kind === this.actionsFor) return;
    this.actionsFor = kind;
    set(this.actions);
    const problem = h('p', { class: 'error', role: 'alert' });
    const act = async (button, f) => {
      set(problem);
      button.disabled = true;
      try {
        const res = await f();
        this.showSession(res.session);
      } catch (err) {
        if (!this.signal.aborted) set(problem, errorText(err));
      } finally {
        button.disabled = false;
      }
    };
    if (kind === 'running' || kind === 'failed') {
      const b = h('button', { type: 'button' }, 'Resume the run');
      b.addEventListener('click', () => act(b, () => api.post(api.session(this.id, 'resume'), undefined, this.signal)));
      add(this.actions, h('p', null, kind === 'running'
        ? 'No run of this session goes on in this server: a crash or a shutdown stopped it. '
        : 'The run stopped on an error; resuming makes its failed model call again. ', b));
    }
    if (kind === 'done' || kind === 'failed') {
      const text = h('textarea', { id: 'more', rows: 2, required: true });
      const b = h('button', { type: 'submit' }, 'Send');
      const form = h('form', { class: 'more' }, h('label', { for: 'more' }, 'Continue with a message'), text, b);
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        act(b, async () => {
          const res = await api.post(api.session(this.id, 'messages'), { message: text.value }, this.signal);
          text.value = '';
          return res;
        });
      });
      add(this.actions, form);
    }
    add(this.actions, problem);
  }

  // loadApprovals shows the calls that wait for a decision, with the
  // controls to approve, reject (with a reason) or edit each.
  async loadApprovals() {
    const res = await api.get(api.session(this.id, 'approvals'), this.signal);
    const ids = res.calls.map((c) => c.call_id).join(' ');
    if (ids === this.approvalsFor) return;
    this.approvalsFor = ids;
    this.approvals.hidden = res.calls.length === 0;
    set(this.approvals);
    if (res.calls.length === 0) return;
    const problem = h('p', { class: 'error', role: 'alert' });
    const submit = h('button', { type: 'submit' }, 'Send decisions');
    const rows = res.calls.map((c, i) => decisionRow(c, i));
    const form = h('form', null, rows.map((r) => r.el), submit, problem);
    add(this.approvals,
      h('h2', { id: 'approvals-h' }, res.calls.length === 1 ? 'A call waits for your decision' : `${res.calls.length} calls wait for your decision`),
      form);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      set(problem);
      let decisions;
      try {
        decisions = rows.map((r) => r.decision());
      } catch (err) {
        set(problem, errorText(err));
        return;
      }
      submit.disabled = true;
      try {
        const r = await api.post(api.session(this.id, 'approvals'), { decisions }, this.signal);
        this.approvals.hidden = true;
        set(this.approvals);
        this.approvalsFor = '';
        this.showSession(r.session);
      } catch (err) {
        if (!this.signal.aborted) set(problem, errorText(err));
      } finally {
        submit.disabled = false;
      }
    });
  }
}

// decisionRow is the controls of one waiting call.
function decisionRow(c, i) {
  const name = `decision-${i}`;
  const radio = (value, label) => {
    const id = `${name}-${value}`;
    return h('span', { class: 'choice' }, h('input', { type: 'radio', id, name, value, required: true }), h('label', { for: id }, label));
  };
  const reason = h('input', { type: 'text', id: `${name}-reason`, placeholder: 'the model reads it' });
  const args = h('textarea', { id: `${name}-args`, rows: Math.min(12, pretty(c.args).split('\n').length + 1), spellcheck: 'false', class: 'mono' }, pretty(c.args));
  const why = h('div', { class: 'field', hidden: true }, h('label', { for: reason.id }, 'Reason'), reason);
  const edit = h('div', { class: 'field', hidden: true }, h('label', { for: args.id }, 'Arguments (JSON)'), args,
    c.parameters ? h('details', null, h('summary', null, 'The tool\'s parameters (JSON Schema)'), h('pre', null, pretty(c.parameters))) : null);
  const el = h('fieldset', { class: 'decide', 'data-call': c.call_id },
    h('legend', null, h('code', null, c.tool), ' ', h('span', { class: 'muted mono' }, c.call_id)),
    h('pre', { class: 'args' }, pretty(c.args)),
    h('div', { class: 'choices' }, radio('approve', 'Approve'), radio('reject', 'Reject'), radio('edit', 'Edit the arguments')),
    why, edit);
  el.addEventListener('change', () => {
    const v = el.querySelector(`input[name="${name}"]:checked`)?.value;
    why.hidden = v !== 'reject';
    edit.hidden = v !== 'edit';
  });
  return {
    el,
    decision() {
      const v = el.querySelector(`input[name="${name}"]:checked`)?.value;
      if (!v) throw new Error(`Choose approve, reject or edit for ${c.tool} (${c.call_id}).`);
      const d = { call_id: c.call_id, decision: v };
      if (v === 'reject' && reason.value.trim()) d.reason = reason.value.trim();
      if (v === 'edit') {
        try {
          d.args = JSON.parse(args.value);
        } catch (err) {
          throw new Error(`The arguments of ${c.tool} (${c.call_id}) are not JSON: ${errorText(err)}`);
        }
      }
      return d;
    },
  };
}

// A Turn is one model call and the calls it made.
class Turn {
  constructor(session, n) {
    this.n = n;
    this.state = h('span', { class: 'muted state' });
    this.cost = h('div', { class: 'cost' });
    this.text = h('div', { class: 'model' });
    this.calls = h('ol', { class: 'calls' });
    this.streamed = '';
    this.el = h('li', { class: 'item turn', id: `turn-${n}`, 'data-turn': n },
      h('header', null,
        h('h2', null, `Turn ${n}`), this.state,
        h('a', { class: 'request', href: route('s', session, 'turns', n, 'request') }, 'Request body')),
      this.cost, this.text, this.calls);
  }

  waiting() {
    set(this.state, 'waiting for the model…');
  }

  settle() {
    set(this.state);
  }

  append(text) {
    this.streamed += text;
    set(this.text, h('p', { class: 'said' }, this.streamed));
  }

  model(d, window) {
    const w = d.window || window;
    const used = d.usage?.input_tokens || d.tokens;
    const facts = [`model call ${ms(d.duration_ms)}`, `${d.sent} messages sent`, `${num(d.tokens)} tokens counted`];
    if (d.usage?.input_tokens) facts.push(`usage ${num(d.usage.input_tokens)} in, ${num(d.usage.output_tokens)} out`);
    if (d.usage?.cache_read_tokens) facts.push(`${num(d.usage.cache_read_tokens)} read from cache`);
    if (d.fitted) facts.push(`history fitted: ${d.cleared ?? 0} results cleared, ${d.removed ?? 0} messages removed`);
    const id = `budget-${this.n}`;
    set(this.cost,
      h('p', { class: 'muted' }, facts.join(' · ')),
      w ? h('div', { class: 'budget' },
        h('label', { for: id }, `Context: ${num(used)} of ${num(w)} tokens (${(100 * used / w).toFixed(1)}%)`),
        h('meter', { id, min: 0, max: w, value: Math.min(used, w), low: Math.round(w * 0.7), high: Math.round(w * 0.9), optimum: 0 }))
        : h('p', { class: 'muted' }, `Context: ${num(used)} tokens (the window is unknown)`),
      d.error ? h('p', { class: 'error' }, 'The model call failed: ', d.error) : null);
  }

  said(d) {
    set(this.state);
    set(this.text,
      d.reasoning ? h('details', { class: 'reasoning' }, h('summary', null, 'Reasoning'), h('p', { class: 'said' }, d.reasoning)) : null,
      d.text ? h('p', { class: 'said' }, d.text) : (d.calls.length ? null : h('p', { class: 'muted' }, 'The model said nothing.')));
  }
}

// A Call is one tool call and the tool message that answered it.
class Call {
  constructor(session, d) {
    this.session = session;
    this.badge = h('span');
    this.timing = h('span', { class: 'muted timing' });
    this.decision = h('div', { class: 'decision', hidden: true });
    this.out = h('div', { class: 'result' });
    this.el = h('li', { class: 'call', 'data-call': d.call_id, 'data-tool': d.tool },
      h('div', { class: 'call-head' },
        h('code', { class: 'tool' }, d.tool), this.badge,
        d.approval ? h('span', { class: 'tag' }, 'needs approval') : null,
        this.timing, h('span', { class: 'muted mono id' }, d.call_id)),
      h('div', { class: 'args' }, h('span', { class: 'label' }, 'Arguments'), h('pre', null, pretty(d.args))),
      this.decision, this.out);
    this.status(d.approval ? 'waiting' : 'called');
  }

  status(s) {
    this.el.dataset.status = s;
    set(this.badge, badge(s));
  }

  start(d) {
    this.status('running');
    set(this.timing, d.attempt > 1 ? `attempt ${d.attempt}` : '');
  }

  done(d) {
    if (this.el.dataset.status === 'running') this.status(d.status);
    set(this.timing, ms(d.duration_ms));
  }

  decided(d) {
    const says = { approve: 'Approved by a person.', reject: 'Rejected by a person', edit: 'Edited by a person; it runs with:' };
    this.decision.hidden = false;
    set(this.decision, h('p', null, says[d.decision] ?? d.decision, d.decision === 'reject' ? (d.reason ? `: ${d.reason}` : '.') : ''),
      d.args !== undefined ? h('pre', null, pretty(d.args)) : null);
    this.status({ approve: 'approved', reject: 'rejected', edit: 'edited' }[d.decision] ?? d.decision);
  }

  // result shows the tool message as the model read it.
  result(d) {
    this.status(d.status);
    set(this.timing, ms(d.duration_ms), d.attempts > 1 ? ` · ${d.attempts} attempts` : '');
    set(this.out, d.content.map((p) => p.type === 'text'
      ? toolMessage(this.session, p.text, d)
      : h('p', { class: 'muted' }, `An ${p.type} (${p.media_type || 'type unknown'}, ${num(p.size)} bytes)`, p.url ? ` at ${p.url}` : '')));
  }
}

const levels = {
  head: 'The model sees the head of the result.',
  aggregate: 'The model sees an aggregate of the result.',
  cleared: 'The result was cleared from the context.',
};

// toolMessage shows a tool message's text: an observation envelope
// (docs/tool-message-protocol.md) as its parts, any other text as it is.
function toolMessage(session, text, d) {
  let env = null;
  try {
    const v = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v) && typeof v.status === 'string') env = v;
  } catch {
    // not JSON: shown as it is
  }
  const sent = h('details', { class: 'sent' },
    h('summary', null, `Tool message as sent (${num(new TextEncoder().encode(text).length)} bytes)`),
    h('pre', null, text));
  if (!env) return h('div', null, h('pre', { class: 'plain' }, text), sent);
  const meta = env.meta ?? {};
  const ref = d.ref || meta.ref;
  const notes = [];
  if (d.truncated || meta.truncated) notes.push(h('p', null, 'Truncated to fit the context', meta.omitted ? `: ${num(meta.omitted)} items left out.` : '.'));
  if (levels[meta.level]) notes.push(h('p', null, levels[meta.level]));
  if (meta.tokens_before > meta.tokens_after && meta.tokens_after) {
    notes.push(h('p', null, `${num(meta.tokens_before)} tokens as the tool returned it, shaped to ${num(meta.tokens_after)}.`));
  }
  if (meta.repaired) notes.push(h('p', null, 'The arguments were repaired: ', meta.repaired));
  if (meta.invalid_utf8) notes.push(h('p', null, 'Invalid UTF-8 in the result was replaced.'));
  if (ref) {
    notes.push(h('p', null, 'The whole result is kept: ',
      h('a', { class: 'full', href: route('s', session, 'results', ref) }, `page the full result (${ref})`), '.'));
  }
  return h('div', null,
    h('p', { class: 'summary' }, d.summary || env.summary || ''),
    env.error ? h('p', { class: 'error' }, h('code', null, env.error.type), ': ', env.error.message, env.error.retryable ? ' (retryable)' : '') : null,
    env.suggestion ? h('p', { class: 'suggestion' }, env.suggestion) : null,
    notes.length ? h('div', { class: 'notes' }, notes) : null,
    'data' in env ? h('details', { class: 'data' }, h('summary', null, 'Data'), h('pre', null, pretty(env.data))) : null,
    sent);
}
