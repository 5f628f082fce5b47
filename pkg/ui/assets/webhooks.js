// The webhooks pages: the tenant's endpoints, and one endpoint's recent
// deliveries and failures, with a re-drive for each failed one
// (docs/webhooks.md).
import { h, api, q, time, ago, num, chip, card, errorBox } from './core.js';

/** webhooksPage is #/webhooks: the tenant's endpoints. */
export function webhooksPage() {
  const box = h('div', { id: 'webhooks' }, h('p', { class: 'muted' }, 'Loading…'));
  api('/v1/webhooks').then((r) => {
    if (r.webhooks.length === 0) {
      box.replaceChildren(h('p', { class: 'empty', id: 'no-webhooks' }, 'No webhook endpoints for this tenant (POST /v1/webhooks, or recall webhooks add).'));
      return;
    }
    box.replaceChildren(h('table', { class: 'stack' },
      h('thead', null, h('tr', null, h('th', null, 'endpoint'), h('th', null, 'types'), h('th', null, 'registered'))),
      h('tbody', null, r.webhooks.map((w) => h('tr', { 'data-webhook': w.id },
        h('td', { 'data-label': 'endpoint' }, h('a', { href: `#/webhook/${encodeURIComponent(w.id)}` }, h('code', null, w.id)),
          h('div', { class: 'muted small' }, w.url)),
        h('td', { 'data-label': 'types' }, w.types.map((t) => chip(t))),
        h('td', { 'data-label': 'registered' }, time(w.created_at)))))));
  }).catch((err) => box.replaceChildren(errorBox(err)));
  return h('div', { class: 'grid', id: 'webhooks-page' },
    card('Webhook endpoints', h('p', { class: 'muted small' }, 'Where this tenant\'s change feed is POSTed, signed with each endpoint\'s secret (never shown after registration).'), box));
}

function delivery(d, redrive) {
  const action = d.status === 'failed'
    ? h('button', { type: 'button', class: 'redrive', 'data-change': d.change_id, onclick: (e) => redrive(d, e.target) }, 'Re-drive')
    : null;
  const next = d.status === 'pending' && d.next_attempt_at ? h('div', { class: 'muted small' }, d.in_flight ? 'attempt in flight' : `next attempt ${ago(d.next_attempt_at)}`) : null;
  return h('tr', { 'data-change': d.change_id, 'data-status': d.status },
    h('td', { 'data-label': 'change' }, h('code', null, d.change_id), h('div', { class: 'muted small' }, d.type, ' · user ',
      h('a', { href: `#/user/${encodeURIComponent(d.user_id)}` }, d.user_id))),
    h('td', { 'data-label': 'status' }, chip(d.status, d.status === 'failed' ? 'bad' : d.status === 'delivered' ? 'ok' : ''), next),
    h('td', { class: 'num', 'data-label': 'attempts' }, num(d.attempts), d.redrives ? h('div', { class: 'muted small' }, `re-driven ${num(d.redrives)}×`) : null),
    h('td', { 'data-label': 'last answer' }, d.last_status_code ? h('b', null, String(d.last_status_code)) : h('span', { class: 'muted' }, 'none'),
      d.last_error ? h('div', { class: 'reason small' }, d.last_error) : null),
    h('td', { 'data-label': 'times' }, h('div', { class: 'small' }, 'made ', time(d.created_at)),
      d.last_attempt_at ? h('div', { class: 'small' }, 'last try ', time(d.last_attempt_at)) : null,
      d.finished_at ? h('div', { class: 'small' }, d.status === 'failed' ? 'gave up ' : 'delivered ', time(d.finished_at)) : null),
    h('td', { 'data-label': '', class: 'action' }, action));
}

/** webhookPage is #/webhook/{id}: an endpoint's recent deliveries and failures. */
export function webhookPage(id) {
  const status = h('div', { id: 'webhook-status' });
  const counts = h('p', { id: 'webhook-counts' });
  const recent = h('div', { id: 'deliveries' }, h('p', { class: 'muted' }, 'Loading…'));
  const failed = h('div', { id: 'failures' });
  const path = `/v1/webhooks/${encodeURIComponent(id)}/deliveries`;
  function table(list, empty, emptyId) {
    if (list.length === 0) return h('p', { class: 'empty', id: emptyId }, empty);
    return h('table', { class: 'stack deliveries' },
      h('thead', null, h('tr', null, h('th', null, 'change'), h('th', null, 'status'), h('th', { class: 'num' }, 'attempts'),
        h('th', null, 'last answer, last failure'), h('th', null, 'times'), h('th', null, ''))),
      h('tbody', null, list.map((d) => delivery(d, redrive))));
  }
  async function load() {
    try {
      const [all, bad] = await Promise.all([api(path + q({ limit: 50 })), api(path + q({ status: 'failed', limit: 50 }))]);
      counts.replaceChildren(chip(`${num(all.counts.pending)} pending`), ' ', chip(`${num(all.counts.delivered)} delivered`, 'ok'), ' ',
        chip(`${num(all.counts.failed)} failed`, all.counts.failed ? 'bad' : ''));
      recent.replaceChildren(table(all.deliveries, 'No deliveries yet.', 'no-deliveries'));
      failed.replaceChildren(table(bad.deliveries, 'No failed deliveries.', 'no-failures'));
    } catch (err) {
      recent.replaceChildren(errorBox(err));
    }
  }
  async function redrive(d, button) {
    button.disabled = true;
    try {
      const r = await api(`${path}/${encodeURIComponent(d.change_id)}/redrive`, { method: 'POST' });
      status.replaceChildren(h('div', { class: 'notice', id: 'redriven' }, `Re-drove ${r.change_id}: it is ${r.status} again, due now.`));
      load();
    } catch (err) {
      status.replaceChildren(errorBox(err));
      button.disabled = false;
    }
  }
  load();
  return h('div', { class: 'grid', id: 'webhook-page' },
    card(`Webhook ${id}`, h('p', null, h('a', { href: '#/webhooks' }, '← every endpoint')), counts, status),
    card('Failures', h('p', { class: 'muted small' }, 'Deliveries given up on after their last attempt (and dead-lettered). Re-drive tries one again from its first attempt.'), failed),
    card('Recent deliveries', recent));
}
