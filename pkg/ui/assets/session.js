// The session page: its messages in order (a page at a time) with tool calls
// and presented lists, its current list, its summaries with the ranges they
// cover, and the context GET /v1/context would build now, part by part.
import { h, api, q, enc, time, num, count, chip, card, pager, errorBox, json, weight } from './core.js';

const parts = ['list', 'window', 'recalled', 'summaries', 'facts'];

function items(list) {
  return h('ol', { class: 'items' }, (list || []).map((it) => h('li', null,
    it.title ? h('b', null, it.title) : null, ' ', h('code', null, it.ref),
    it.attrs ? h('span', { class: 'muted small' }, ` ${JSON.stringify(it.attrs)}`) : null)));
}

function message(m) {
  const calls = m.tool_calls || [];
  return h('li', { class: 'msg', 'data-id': m.id },
    h('div', { class: 'row small' }, chip(m.role, m.role), h('span', { class: 'muted' }, time(m.occurred_at)),
      h('code', { class: 'muted' }, m.id)),
    m.content ? h('div', { class: 'content' }, m.content) : null,
    calls.length ? h('details', { class: 'tool-calls' }, h('summary', null, `${calls.length} tool call${calls.length > 1 ? 's' : ''}: ${calls.map((c) => c.name).join(', ')}`),
      calls.map((c) => h('div', null, h('b', null, c.name), c.status ? ` · ${c.status}` : '', c.duration_ms !== undefined ? ` · ${c.duration_ms} ms` : '',
        h('pre', null, `arguments: ${json(c.arguments)}\nresult: ${json(c.result)}`)))) : null,
    Array.isArray(m.items) ? h('details', { class: 'presented' }, h('summary', null, `presented a list of ${m.items.length}`), items(m.items)) : null,
    m.metadata ? h('details', null, h('summary', null, 'metadata'), h('pre', null, json(m.metadata))) : null);
}

function cuts(list) {
  if (!list || list.length === 0) return h('span', { class: 'muted' }, 'nothing cut');
  return list.map((c) => chip(`${c.count} × ${c.reason}`, c.reason === 'budget' ? 'warn' : ''));
}

/** preview renders a context response: what each part spent and kept, and what was cut and why. */
function preview(ctx) {
  const b = ctx.budget;
  const spent = b.parts || {};
  const total = b.limit || b.used || 1;
  const bar = h('div', { class: 'bar', title: `${b.used} of ${b.limit || 'unlimited'} characters` });
  for (const p of parts) {
    const seg = h('span', { class: `p-${p}`, title: `${p}: ${spent[p] || 0}` });
    seg.style.width = `${((spent[p] || 0) / total) * 100}%`;
    bar.append(seg);
  }
  const kept = {
    list: ctx.list ? `${num(ctx.list.items.length)} of ${count(ctx.list.count, 'item')}` : 'no list',
    window: count(ctx.window.messages.length, 'message'),
    recalled: ctx.recalled ? `${count(ctx.recalled.hits.length, 'hit')} (${ctx.recalled.search})` : 'no query',
    summaries: `${ctx.summaries.current ? 'this session + ' : ''}${ctx.summaries.previous.length} previous`,
    facts: count(ctx.facts.facts.length, 'fact'),
  };
  const cutOf = {
    list: ctx.list && ctx.list.cuts, window: ctx.window.cuts, recalled: ctx.recalled && ctx.recalled.cuts,
    summaries: ctx.summaries.cuts, facts: ctx.facts.cuts,
  };
  return h('div', { id: 'preview' },
    h('p', null, `${num(b.used)} characters used of ${b.limit ? num(b.limit) : 'no'} budget · language ${ctx.lang} · window ${ctx.limits.max_messages} messages / ${num(ctx.limits.max_chars)} chars / ttl ${ctx.ttl}`),
    bar,
    h('div', { class: 'scroll' }, h('table', { class: 'stack', id: 'budget' },
      h('thead', null, h('tr', null, h('th', null, 'part'), h('th', { class: 'num' }, 'characters'), h('th', null, 'kept'), h('th', null, 'cut (why)'))),
      h('tbody', null, parts.map((p) => h('tr', { 'data-part': p },
        h('td', { 'data-label': 'part' }, h('span', { class: `swatch p-${p}` }), p),
        h('td', { class: 'num', 'data-label': 'characters' }, num(spent[p] || 0)),
        h('td', { 'data-label': 'kept' }, kept[p]),
        h('td', { 'data-label': 'cut (why)' }, cuts(cutOf[p]))))))),
    h('p', { class: 'muted small' }, 'Reasons: count, ttl, chars, role (the window\'s limits), expired and decayed (facts past their expiry or below the floor), window (a recalled turn the window already shows), budget (did not fit; spent in the order list, window, recalled, summaries, facts).'),
    ctx.recalled ? recalled(ctx.recalled) : null,
    h('details', null, h('summary', null, 'the prompt block'), h('pre', { id: 'prompt' }, ctx.prompt)));
}

/** recalled lists what the search found in the user's history, as the prompt shows it: when, in which session, by whom. */
function recalled(r) {
  const head = h('h3', null, `Recalled for “${r.query}”: ${count(r.hits.length, 'hit')} (${r.search} search)`);
  // The times the message names, as the search read them (the user's days): what happened then comes first.
  const during = r.during && r.during.length ? h('p', { id: 'during', class: 'muted small' },
    `The message names a time, read as ${r.during.map((s) => `${time(s.from)} – ${time(s.to)} UTC`).join(', ')}: what happened then is recalled first.`) : null;
  if (r.hits.length === 0) return h('div', null, head, during, h('p', { class: 'empty' }, 'Nothing in the user\'s history matched, or nothing fitted.'));
  return h('div', null, head, during, h('div', { class: 'scroll' }, h('table', { class: 'stack', id: 'recalled' },
    h('thead', null, h('tr', null, h('th', null, 'when'), h('th', null, 'session'), h('th', null, 'what'), h('th', null, 'snippet'), h('th', { class: 'num' }, 'score'))),
    h('tbody', null, r.hits.map((hit) => h('tr', { 'data-kind': hit.kind },
      h('td', { 'data-label': 'when', class: 'nowrap' }, time(hit.occurred_at)),
      h('td', { 'data-label': 'session' }, hit.session_id ? h('a', { href: `#/session/${enc(hit.session_id)}` }, hit.session_id) : h('span', { class: 'muted' }, '—')),
      h('td', { 'data-label': 'what' }, chip(hit.role || hit.kind, hit.role || '')),
      h('td', { 'data-label': 'snippet', class: 'snippet' }, hit.text, hit.truncated ? h('span', { class: 'muted' }, ' …') : null),
      h('td', { class: 'num', 'data-label': 'score' }, weight(hit.score))))))));
}

function contextSection(sess) {
  const out = h('div', null, h('p', { class: 'muted' }, 'Loading…'));
  const listBox = h('div', { id: 'list' }, h('p', { class: 'muted' }, 'Loading…'));
  const query = h('input', { type: 'search', name: 'query', placeholder: 'the user\'s next message', 'aria-label': 'the user\'s next message' });
  const budget = h('input', { type: 'number', name: 'budget', min: 0, placeholder: 'default', 'aria-label': 'budget in characters' });
  async function load() {
    try {
      const ctx = await api(`/v1/context${q({ user_id: sess.user_id, session_id: sess.session_id, query: query.value.trim(), budget: budget.value })}`);
      out.replaceChildren(preview(ctx));
      listBox.replaceChildren(ctx.list
        ? h('div', null, h('p', { class: 'muted small' }, `shown ${time(ctx.list.occurred_at)} by `, h('code', null, ctx.list.event_id),
          ` · ${count(ctx.list.count, 'item')}; "3" in the user's next message means item 3`),
        h('table', { class: 'stack' }, h('thead', null, h('tr', null, h('th', { class: 'num' }, 'n'), h('th', null, 'title'), h('th', null, 'ref'), h('th', null, 'attrs'))),
          h('tbody', null, ctx.list.items.map((it) => h('tr', null, h('td', { class: 'num', 'data-label': 'n' }, it.n),
            h('td', { 'data-label': 'title' }, it.title || ''), h('td', { 'data-label': 'ref' }, h('code', null, it.ref)),
            h('td', { 'data-label': 'attrs' }, it.attrs ? h('code', null, JSON.stringify(it.attrs)) : ''))))))
        : h('p', { class: 'empty' }, 'This session has presented no list.'));
    } catch (err) {
      out.replaceChildren(errorBox(err));
    }
  }
  const form = h('form', { class: 'inline preview' },
    h('label', { class: 'field query' }, h('span', null, 'Next message (optional)'), query),
    h('label', { class: 'field budget' }, h('span', null, 'Budget (characters)'), budget),
    h('button', { class: 'primary', type: 'submit' }, 'Preview'));
  form.addEventListener('submit', (e) => { e.preventDefault(); load(); });
  load();
  return [card('Current list', listBox), card('Context preview (GET /v1/context, now)', form,
    h('p', { class: 'muted small' }, 'With a next message, the preview searches the user\'s whole history for it (query=) and lists what it recalled.'), out)];
}

function summariesSection(id) {
  const box = h('div', { id: 'summaries' }, h('p', { class: 'muted' }, 'Loading…'));
  api(`/v1/sessions/${enc(id)}/summaries`).then((r) => {
    box.replaceChildren(r.summaries.length === 0 ? h('p', { class: 'empty' }, 'No summary yet.')
      : h('ol', { class: 'timeline' }, r.summaries.map((s) => h('li', null,
        h('div', { class: 'when' }, `v${s.version}${s.current ? ' (current)' : ''} · covers ${time(s.covers_from)} – ${time(s.covers_to)}`),
        h('p', null, s.summary),
        h('div', { class: 'row small' }, s.key_topics.map((t) => chip(t)),
          h('span', { class: 'muted' }, `read messages ${s.from_count + 1}–${s.through_count} (${time(s.first_at)} – ${time(s.last_at)}) · ${s.model} · ${s.reason}`))))));
  }).catch((err) => box.replaceChildren(errorBox(err)));
  return card('Summaries', box);
}

function messagesSection(id) {
  const list = h('ol', { class: 'msgs', id: 'messages' });
  return card('Messages (event-time order)', pager(list, async (cursor) => {
    const r = await api(`/v1/sessions/${enc(id)}/messages${q({ limit: 50, cursor })}`);
    return { items: r.messages, next: r.next_cursor };
  }, message, { more: 'Next 50 messages', empty: 'No messages.' }));
}

/** sessionPage is #/session/<id>. */
export function sessionPage(id) {
  const page = h('div', { class: 'grid', id: 'session-page' }, h('p', { class: 'muted' }, 'Loading…'));
  api(`/v1/sessions/${enc(id)}${q({ recent: 1 })}`).then((sess) => {
    const [list, ctx] = contextSection(sess);
    page.replaceChildren(
      card(null, h('h1', { id: 'session-id' }, id),
        h('div', { class: 'stats' },
          h('div', null, h('span', { class: 'muted small' }, 'user '), h('a', { href: `#/user/${enc(sess.user_id)}`, id: 'session-user' }, sess.user_id)),
          h('div', null, h('span', { class: 'muted small' }, 'messages '), num(sess.message_count)),
          h('div', null, h('span', { class: 'muted small' }, 'from '), time(sess.first_message_at)),
          h('div', null, h('span', { class: 'muted small' }, 'to '), time(sess.last_message_at)))),
      h('div', { class: 'grid two' },
        h('div', { class: 'grid' }, ctx, messagesSection(id)),
        h('div', { class: 'grid' }, list, summariesSection(id))));
  }).catch((err) => page.replaceChildren(card(id, errorBox(err))));
  return page;
}
