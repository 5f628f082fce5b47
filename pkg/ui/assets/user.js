// The user page: what Recall holds about one user (counted as forgetting
// would remove it), who they are and what they asked for (their attributes,
// with source, evidence and history, editable), their interest facts with
// weight curves, shelf and recommendations, and their sessions' summaries on
// a timeline.
import { h, api, q, enc, time, day, ago, num, count, plural, weight, chip, card, pager, errorBox, duration } from './core.js';
import { weightChart, chartLegend } from './chart.js';

// labels name what a forget report counts, for one and for several.
const labels = {
  messages: ['message', 'messages'], sessions: ['session', 'sessions'], session_summaries: ['summary', 'summaries'],
  facts: ['fact', 'facts'], fact_mentions: ['fact mention', 'fact mentions'], shelf_items: ['shelf item', 'shelf items'],
  user_profiles: ['interest vector', 'interest vectors'], profile_refresh_outbox: ['pending interests refresh', 'pending interests refreshes'],
  seen_items: ['item seen', 'items seen'], seen_lists: ['list shown', 'lists shown'],
  item_notifications: ['notification', 'notifications'], search_entries: ['search entry', 'search entries'],
  attribute_assertions: ['attribute value', 'attribute values'], webhook_deliveries: ['webhook delivery', 'webhook deliveries'],
};

/** removal lists what a forget report counts, non-zero rows and stream messages. */
function removal(rep) {
  const rows = Object.entries(rep.rows || {}).filter(([, n]) => n > 0)
    .map(([t, n]) => h('li', null, labels[t] ? count(n, ...labels[t]) : `${num(n)} ${t}`));
  const streams = Object.entries(rep.stream_messages || {}).filter(([, n]) => n > 0)
    .map(([s, n]) => h('li', null, `${count(n, 'message')} in stream ${s}`));
  return [...rows, ...streams];
}

function forgetDialog(userID, rep, done) {
  const dialog = document.getElementById('dialog');
  const status = h('div');
  const confirm = h('button', { class: 'danger', type: 'button', id: 'confirm-forget' }, 'Forget this user');
  const cancel = h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel');
  confirm.addEventListener('click', async () => {
    confirm.disabled = true;
    try {
      const res = await api(`/v1/users/${enc(userID)}`, { method: 'DELETE' });
      dialog.close();
      done(res);
    } catch (err) {
      status.replaceChildren(errorBox(err));
      confirm.disabled = false;
    }
  });
  dialog.replaceChildren(
    h('h2', null, `Forget ${userID}?`),
    h('p', null, 'This removes, for good, from every table and every stream (so no replay brings it back):'),
    h('ul', { id: 'forget-counts' }, removal(rep)),
    status,
    h('div', { class: 'row' }, confirm, cancel));
  dialog.showModal();
}

function overview(userID, rep, page) {
  const r = rep.rows || {};
  const stat = (n, one, many) => h('div', null, h('b', null, num(n)), h('span', { class: 'muted small' }, plural(n, one, many)));
  const forget = h('button', { class: 'danger', type: 'button', id: 'forget' }, 'Forget this user…');
  forget.addEventListener('click', async () => {
    forget.disabled = true;
    try {
      // Counted again now: the confirmation names what will be removed.
      const fresh = await api(`/v1/users/${enc(userID)}`);
      forgetDialog(userID, fresh, (res) => {
        page.replaceChildren(card(`${userID} forgotten`,
          h('div', { class: 'notice', id: 'forgotten' }, 'Removed:'), h('ul', null, removal(res)),
          h('p', null, h('a', { href: '#/' }, 'Back to users'))));
      });
    } catch (err) {
      page.prepend(errorBox(err));
    } finally {
      forget.disabled = false;
    }
  });
  return h('section', { class: 'card' },
    h('div', { class: 'row spread' }, h('h1', { id: 'user-id' }, userID), forget),
    h('div', { class: 'stats' },
      stat(r.sessions, 'session'), stat(r.messages, 'message'), stat(r.facts, 'interest fact'),
      stat(r.session_summaries, 'summary', 'summaries'), stat(r.shelf_items, 'shelf item'), stat(r.seen_items, 'item seen', 'items seen'),
      stat(r.search_entries, 'search entry', 'search entries')));
}

/** meter is a bar as long as the weight; its width is set through the CSSOM (the page's policy allows no inline style attributes). */
function meter(w) {
  const fill = h('span');
  fill.style.width = `${Math.max(0, Math.min(1, w)) * 100}%`;
  return h('div', { class: 'meter', title: `weight ${weight(w)}` }, fill);
}

function factCard(f, at, rule) {
  const status = f.status_now !== f.status ? [chip(f.status_now, f.status_now), chip(`stored: ${f.status}`, 'small')] : chip(f.status_now, f.status_now);
  return h('article', { class: 'fact' },
    h('div', { class: 'row spread' }, h('span', { class: 'name' }, f.display || f.value), h('span', null, chip(f.type), ' ', status)),
    meter(f.weight),
    h('dl', null,
      h('dt', null, 'weight now'), h('dd', { class: 'weight' }, `${weight(f.weight)} (base ${weight(f.base_weight)})`),
      h('dt', null, 'last mention'), h('dd', null, `${time(f.last_mentioned_at)} · ${ago(f.last_mentioned_at, new Date(at).getTime())}`),
      h('dt', null, 'mentions'), h('dd', null, `${num(f.mention_count)} since ${day(f.first_seen_at)}`),
      h('dt', null, 'expires'), h('dd', null, `${time(f.expires_at)} · ${ago(f.expires_at, new Date(at).getTime())}`),
      h('dt', null, 'source'), h('dd', null, f.source, f.source_session_id ? [' · ', h('a', { href: `#/session/${enc(f.source_session_id)}` }, f.source_session_id)] : null)),
    weightChart(f, at, rule),
    rule ? h('div', { class: 'muted small' },
      `×${rule.factor} every ${duration(rule.period_seconds)}, archived below ${rule.floor}`,
      rule.archived_after_periods ? ` (after ${rule.archived_after_periods} periods)` : ' (never)',
      `, expires ${duration(rule.ttl_seconds)} after the last mention`) : null);
}

function factsSection(userID) {
  const grid = h('div', { class: 'facts', id: 'facts' });
  return card('Interest facts',
    h('p', { class: 'muted small' }, 'Newest mention first. Weights and curves come from the server\'s decay policy, as the context and the decayer apply it.'),
    chartLegend(),
    pager(grid, async (cursor) => {
      const r = await api(`/v1/users/${enc(userID)}/facts${q({ limit: 20, cursor })}`);
      return { items: r.facts.map((f) => ({ f, at: r.at, rule: r.policy[f.type] })), next: r.next_cursor };
    }, ({ f, at, rule }) => factCard(f, at, rule), { more: 'More facts', empty: 'No interest facts.' }));
}

/** attributeRow is one current value: key, value, source, since when, its evidence, and a button that removes it. */
function attributeRow(userID, v, reload) {
  const remove = h('button', { type: 'button', class: 'small', title: 'Remove this value (an explicit edit)' }, 'Remove');
  remove.addEventListener('click', async () => {
    remove.disabled = true;
    try {
      await api(`/v1/users/${enc(userID)}/attributes/${enc(v.key)}${q({ value: v.item ? v.value : '' })}`, { method: 'DELETE' });
      reload();
    } catch (err) {
      remove.replaceWith(errorBox(err));
    }
  });
  const evidence = v.session_id ? [' · from ', h('a', { href: `#/session/${enc(v.session_id)}` }, v.session_id)] : null;
  return h('li', { class: 'attribute' },
    h('b', null, v.key), ' ', h('span', { class: 'value' }, v.value), ' ', chip(v.source),
    h('span', { class: 'muted small' }, ` since ${day(v.valid_from)}`, evidence), ' ', remove);
}

/** statementRow is one of the user's own statements: their words, when, the session and turns it was read from, and a button that removes it. */
function statementRow(userID, v, reload) {
  const row = attributeRow(userID, v, reload);
  row.classList.add('statement');
  const turns = (v.evidence || []).map((id, i) => [i ? ', ' : ' · turn ', h('code', { class: 'small' }, id)]);
  row.querySelector('.muted').append(...turns.flat());
  if ((v.value || '').startsWith('Chose from the options offered')) row.querySelector('.value').prepend(chip('choice'), ' ');
  return row;
}

/** attributesSection is who the user is and what they asked for: current values, an edit form, and the history. */
function attributesSection(userID) {
  const about = h('ul', { id: 'attributes-about' });
  const asked = h('ul', { id: 'attributes-asked' });
  const said = h('ul', { id: 'attributes-said' });
  const history = h('ol', { id: 'attributes-history', class: 'small' });
  const status = h('div');
  const key = h('input', { id: 'attribute-key', placeholder: 'key (reply_language, allergies…)', autocomplete: 'off' });
  const value = h('input', { id: 'attribute-value', placeholder: 'value', autocomplete: 'off' });
  const set = h('button', { type: 'submit', id: 'attribute-set' }, 'Set');
  async function reload() {
    try {
      const r = await api(`/v1/users/${enc(userID)}/attributes${q({ history: true })}`);
      const rows = (group) => r.current.filter((v) => v.group === group && v.key !== 'statements').map((v) => attributeRow(userID, v, later));
      const own = r.current.filter((v) => v.key === 'statements').map((v) => statementRow(userID, v, later));
      said.replaceChildren(...(own.length ? own : [h('li', { class: 'empty' }, 'Nothing said yet.')]));
      const a = rows('about');
      const p = rows('preference');
      about.replaceChildren(...(a.length ? a : [h('li', { class: 'empty' }, 'Nothing known.')]));
      asked.replaceChildren(...(p.length ? p : [h('li', { class: 'empty' }, 'Nothing asked.')]));
      history.replaceChildren(...(r.history || []).map((v) => h('li', null,
        chip(v.status, v.status), ' ', h('b', null, v.key), ' ', v.op === 'remove' ? `removed ${v.value}` : v.value, ' ', chip(v.source),
        h('span', { class: 'muted' }, ` ${time(v.valid_from)}`, v.valid_to ? ` – ${time(v.valid_to)}` : ''))));
    } catch (err) {
      status.replaceChildren(errorBox(err));
    }
  }
  // An edit is stored by a worker after the API accepts it: read again once
  // it has had the time to land.
  function later() { setTimeout(reload, 500); }
  const form = h('form', { class: 'row', id: 'attribute-form' }, key, value, set);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    set.disabled = true;
    status.replaceChildren();
    try {
      await api(`/v1/users/${enc(userID)}/attributes/${enc(key.value.trim())}`, { method: 'PUT', body: { value: value.value } });
      value.value = '';
      later();
    } catch (err) {
      status.replaceChildren(errorBox(err));
    } finally {
      set.disabled = false;
    }
  });
  reload();
  return h('section', { class: 'card', id: 'attributes' },
    h('h2', null, 'Who the user is'),
    h('p', { class: 'muted small' }, 'Current values only reach the context; set explicitly, stated by the user, inferred or derived. An edit here is an explicit value.'),
    h('h3', null, 'About'), about, h('h3', null, 'Asked for'), asked,
    h('h3', null, 'In their own words'),
    h('p', { class: 'muted small' }, 'What the user said about themselves, one per matter (a newer word on the same matter supersedes it); a context shows those that bear on its message, then the strongest.'),
    said, form, status,
    h('details', null, h('summary', null, 'History'), history));
}

function shelfSection(userID) {
  const body = h('div', { id: 'shelf' }, h('p', { class: 'muted' }, 'Loading…'));
  const recs = h('div', { id: 'recommendations' }, h('p', { class: 'muted' }, 'Loading…'));
  api(`/v1/users/${enc(userID)}/shelf`).then((r) => {
    body.replaceChildren(r.items.length === 0 ? h('p', { class: 'empty' }, 'Nothing on the shelf.')
      : h('ul', null, r.items.map((it) => h('li', null, chip(it.status), ' ', it.title || it.ref, ' ',
        h('code', null, it.ref), h('span', { class: 'muted small' }, ` ${day(it.occurred_at)}`)))));
  }).catch((err) => body.replaceChildren(errorBox(err)));
  api(`/v1/users/${enc(userID)}/recommendations${q({ k: 10 })}`).then((r) => {
    recs.replaceChildren(r.items.length === 0 ? h('p', { class: 'empty' }, 'No catalog items to recommend.')
      : h('ol', { class: 'items' }, r.items.map((it) => h('li', null, it.title || it.ref, ' ', h('code', null, it.ref),
        h('span', { class: 'muted small' }, ` score ${weight(it.score)}`)))));
  }).catch((err) => recs.replaceChildren(err.status === 409
    ? h('p', { class: 'empty' }, 'No interest vector yet, so nothing to rank the catalog by.') : errorBox(err)));
  return card('Shelf and recommendations', h('h3', null, 'Shelf'), body, h('h3', null, 'Recommended (nearest to the interest vector)'), recs);
}

function sessionsSection(userID) {
  const list = h('ol', { class: 'timeline', id: 'sessions' });
  return card('Sessions and their summaries',
    pager(list, async (cursor) => {
      const r = await api(`/v1/users/${enc(userID)}/sessions${q({ limit: 10, cursor })}`);
      return { items: r.sessions, next: r.next_cursor };
    }, (s) => h('li', null,
      h('div', { class: 'when' }, `${time(s.first_message_at)} – ${time(s.last_message_at)} · ${count(s.message_count, 'message')}`),
      h('a', { href: `#/session/${enc(s.session_id)}` }, s.session_id),
      s.summary ? [
        h('p', { class: 'summary' }, s.summary.summary),
        h('div', { class: 'row small' }, s.summary.key_topics.map((t) => chip(t)),
          h('span', { class: 'muted' }, `covers ${time(s.summary.covers_from)} – ${time(s.summary.covers_to)}, v${s.summary.version}, ${s.summary.model}`)),
      ] : h('p', { class: 'empty small' }, 'No summary yet.')),
    { more: 'Older sessions', empty: 'No sessions.' }));
}

/** userPage is #/user/<id>. */
export function userPage(userID) {
  const page = h('div', { class: 'grid', id: 'user-page' }, h('p', { class: 'muted' }, 'Loading…'));
  api(`/v1/users/${enc(userID)}`).then((rep) => {
    page.replaceChildren(
      overview(userID, rep, page),
      h('div', { class: 'grid two' },
        h('div', { class: 'grid' }, attributesSection(userID), factsSection(userID)),
        h('div', { class: 'grid' }, shelfSection(userID), sessionsSection(userID))));
  }).catch((err) => {
    page.replaceChildren(card(userID, err.status === 404 ? h('p', { class: 'empty', id: 'no-user' }, 'Nothing is stored about this user.') : errorBox(err)));
  });
  return page;
}
