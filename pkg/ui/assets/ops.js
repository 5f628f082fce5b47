// The operations page: consumer backlogs, the tenant's dead letters (with a
// re-drive), and the decayer's last run.
import { h, api, q, time, clock, ago, num, count, chip, card, errorBox, json } from './core.js';

/** token reads an id back from a subject token (plain, or "~" and base64url). */
function token(tok) {
  if (!tok || !tok.startsWith('~')) return tok;
  const b64 = tok.slice(1).replace(/-/g, '+').replace(/_/g, '/');
  try {
    const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    return tok;
  }
}

/** whose names the user and session a dead letter's original subject carries, linked. */
function whose(subject) {
  const parts = (subject || '').split('.');
  const ids = parts[1] === 'tasks' ? parts.slice(3) : parts.slice(2);
  const [, user, session] = ids.map(token);
  return h('div', { class: 'small' },
    user ? ['user ', h('a', { href: `#/user/${encodeURIComponent(user)}` }, user)] : null,
    session ? [' · session ', h('a', { href: `#/session/${encodeURIComponent(session)}` }, session)] : null);
}

function consumers() {
  const box = h('div', { id: 'consumers' }, h('p', { class: 'muted' }, 'Loading…'));
  api('/v1/ops/consumers').then((r) => {
    box.replaceChildren(h('table', null,
      h('thead', null, h('tr', null, h('th', null, 'stream'), h('th', null, 'consumer'), h('th', { class: 'num' }, 'pending'), h('th', { class: 'num' }, 'in flight'))),
      h('tbody', null, r.consumers.map((c) => h('tr', null,
        h('td', { 'data-label': 'stream' }, c.stream), h('td', { 'data-label': 'consumer' }, h('b', null, c.name)),
        h('td', { class: 'num', 'data-label': 'pending' }, num(c.pending)),
        h('td', { class: 'num', 'data-label': 'in flight' }, num(c.ack_pending)))))));
  }).catch((err) => box.replaceChildren(errorBox(err)));
  return card('Consumers', h('p', { class: 'muted small' }, 'Pending: not yet delivered. In flight: delivered, not yet acknowledged. Counted over every tenant.'), box);
}

/** messageKey names the message a dead letter holds: consumers that gave up on the same stored message share it. */
function messageKey(d) { return d.stream_seq ? `${d.stream} ${d.stream_seq}` : `seq ${d.seq}`; }

/** refusal explains a failed re-drive; inside the duplicate window, when it will work. */
function refusal(err) {
  const box = errorBox(err);
  if (err.code === 'still_duplicate' && err.retryAt) {
    box.append(h('div', null, h('b', null, `Re-drive will work from ${clock(err.retryAt)} UTC`), ` (${ago(err.retryAt)}).`));
  }
  return box;
}

function deadLetters() {
  const box = h('div', { id: 'dead-letters' });
  const status = h('div', { id: 'dead-letters-status' });
  let after = 0;
  // groups holds the rows shown, one per message, by messageKey.
  let groups = new Map();
  const body = h('tbody');
  const more = h('button', { type: 'button', hidden: true }, 'More');
  async function load(reset) {
    if (reset) { after = 0; groups = new Map(); body.replaceChildren(); }
    try {
      const r = await api(`/v1/ops/dead-letters${q({ after: after || '', limit: 50 })}`);
      for (const d of r.dead_letters) {
        const key = messageKey(d);
        const g = groups.get(key);
        if (g) {
          g.letters.push(d);
          const tr = row(g.letters);
          g.tr.replaceWith(tr);
          g.tr = tr;
        } else {
          const tr = row([d]);
          groups.set(key, { letters: [d], tr });
          body.append(tr);
        }
      }
      after = r.next_after || 0;
      more.hidden = !r.next_after;
      if (body.children.length === 0) box.replaceChildren(h('p', { class: 'empty', id: 'no-dead-letters' }, 'No dead letters for this tenant.'));
    } catch (err) {
      status.replaceChildren(errorBox(err));
    }
  }
  function row(letters) {
    const [d] = letters;
    const names = letters.map((l) => l.consumer);
    const redrive = h('button', { type: 'button', class: 'redrive', 'data-seq': d.seq }, 'Re-drive');
    redrive.addEventListener('click', async () => {
      redrive.disabled = true;
      try {
        const r = await api(`/v1/ops/dead-letters/${d.seq}/redrive`, { method: 'POST' });
        const n = 1 + r.also_removed.length;
        status.replaceChildren(h('div', { class: 'notice', id: 'redriven' },
          `Re-drove ${r.event_id || `dead letter ${r.seq}`} to ${r.subject}, once for ${count(n, 'consumer')} (${names.join(', ')}): every consumer of it sees the message again.`));
        box.replaceChildren(table);
        load(true);
      } catch (err) {
        status.replaceChildren(refusal(err));
        redrive.disabled = false;
      }
    });
    return h('tr', { 'data-seq': d.seq },
      h('td', { 'data-label': 'message', class: 'message' }, h('code', null, d.event_id || '(no id)'), whose(d.subject),
        h('div', { class: 'muted small subject' }, d.subject),
        h('details', null, h('summary', null, 'payload'), h('pre', null, typeof d.data === 'string' ? d.data : json(d.data)))),
      h('td', { 'data-label': 'gave up' }, h('ul', { class: 'consumers' }, letters.map((l) => h('li', { 'data-seq': l.seq },
        h('b', null, l.consumer), ' ',
        h('span', { class: 'muted small' }, h('span', { class: 'nowrap' }, count(l.deliveries, 'delivery', 'deliveries')), ' · failed ',
          h('span', { class: 'nowrap' }, time(l.failed_at)), ' · ', h('span', { class: 'nowrap' }, `#${l.seq}`)),
        h('div', { class: 'reason' }, l.reason))))),
      h('td', { 'data-label': '', class: 'action' }, redrive));
  }
  const table = h('table', { class: 'stack dead-letters' },
    h('thead', null, h('tr', null, h('th', null, 'message'), h('th', null, 'consumers that gave up, and why'), h('th', null, ''))), body);
  more.addEventListener('click', () => load(false));
  box.append(table);
  load(true);
  return card('Dead letters', h('p', { class: 'muted small' }, 'Messages a worker gave up on, this tenant\'s only, one row per message with every consumer that gave up on it. Re-drive publishes the message back to its subject once (as recall dlq redrive), for all of them, and removes their dead letters of it.'), status, box, more);
}

function run(r) {
  return h('div', null,
    h('p', null, chip(r.result, r.result), ` ${time(r.finished_at)} · judged as of ${time(r.at)} · ${num(new Date(r.finished_at) - new Date(r.started_at))} ms`),
    r.error ? errorBox(r.error) : null,
    h('table', null, h('thead', null, h('tr', null, h('th', null, 'step'), h('th', { class: 'num' }, 'batches'), h('th', { class: 'num' }, 'ms'), h('th', null, 'counts'))),
      h('tbody', null, r.steps.map((s) => h('tr', null,
        h('td', { 'data-label': 'step' }, s.name, s.error ? errorBox(s.error) : null),
        h('td', { class: 'num', 'data-label': 'batches' }, num(s.batches)),
        h('td', { class: 'num', 'data-label': 'ms' }, num(s.duration_ms)),
        h('td', { 'data-label': 'counts' }, Object.entries(s.counts || {}).map(([k, v]) => chip(`${k} ${num(v)}`))))))));
}

function decayer() {
  const box = h('div', { id: 'decayer' }, h('p', { class: 'muted' }, 'Loading…'));
  api('/v1/ops/decayer').then((r) => {
    if (!r.last_run) { box.replaceChildren(h('p', { class: 'empty' }, 'The decayer has not run yet.')); return; }
    box.replaceChildren(h('h3', null, 'Last run'), run(r.last_run));
    if (r.last_success && r.last_success.finished_at !== r.last_run.finished_at) {
      box.append(h('h3', null, 'Last success'), run(r.last_success));
    }
  }).catch((err) => box.replaceChildren(errorBox(err)));
  return card('Decayer', h('p', { class: 'muted small' }, 'Fact decay, archive and expiry, purge, retention; counts over every tenant.'), box);
}

/** opsPage is #/ops. */
export function opsPage() {
  return h('div', { class: 'grid', id: 'ops-page' }, deadLetters(), h('div', { class: 'grid halves' }, consumers(), decayer()));
}
