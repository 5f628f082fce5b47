// Shared pieces of the inspector's pages: DOM building (text is always set as
// text, never parsed as HTML), the /v1 client with the tenant's credentials,
// and formatting.

const store = window.sessionStorage;

/** The tenant and key given at sign-in, or null. */
export function credentials() {
  const tenant = store.getItem('recall.tenant');
  return tenant ? { tenant, key: store.getItem('recall.key') || '' } : null;
}

export function signIn(tenant, key) {
  store.setItem('recall.tenant', tenant);
  store.setItem('recall.key', key);
}

export function signOut() {
  store.removeItem('recall.tenant');
  store.removeItem('recall.key');
}

/**
 * APIError is a /v1 error answer: its status, code, message and fields, and
 * when the same request will work where the server knows (retryAt).
 */
export class APIError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    const fields = (e.fields || []).map((f) => `${f.field}: ${f.message}`).join('; ');
    super(`${status} ${e.code || ''}: ${e.message || 'request failed'}${fields ? ` (${fields})` : ''}`);
    this.status = status;
    this.code = e.code;
    this.retryAt = e.retry_at || null;
  }
}

/** api calls a /v1 route as the signed-in tenant and returns its JSON. */
export async function api(path, { method = 'GET', body } = {}) {
  const c = credentials();
  if (!c) throw new APIError(401, { error: { code: 'unauthorized', message: 'not signed in' } });
  const headers = { 'X-Tenant-ID': c.tenant };
  if (c.key) headers.Authorization = `Bearer ${c.key}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) {
    if (res.status === 401 || res.status === 403) window.dispatchEvent(new CustomEvent('recall:auth', { detail: res.status }));
    throw new APIError(res.status, data);
  }
  return data;
}

/** q builds a query string from the non-empty values. */
export function q(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, v);
  const s = u.toString();
  return s ? `?${s}` : '';
}

export const enc = encodeURIComponent;

function build(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** h makes an HTML element: h('a', {href}, 'text', child...). */
export function h(tag, attrs, ...children) { return build(document.createElement(tag), attrs, children); }

/** svg makes an SVG element. */
export function svg(tag, attrs, ...children) {
  return build(document.createElementNS('http://www.w3.org/2000/svg', tag), attrs, children);
}

/** time formats an RFC 3339 time as "2026-11-22 08:15" (UTC). */
export function time(t) {
  if (!t) return '—';
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? String(t) : d.toISOString().slice(0, 16).replace('T', ' ');
}

/** clock formats an RFC 3339 time to the second: "2026-11-22 08:15:42" (UTC). */
export function clock(t) {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? String(t) : d.toISOString().slice(0, 19).replace('T', ' ');
}

/** day formats a time as its UTC day. */
export function day(t) { return time(t).slice(0, 10); }

/** ago says how long before now a time was, roughly ("3 d ago", "in 2 h"). */
export function ago(t, now = Date.now()) {
  const ms = now - new Date(t).getTime();
  const a = Math.abs(ms);
  const units = [[86400e3, 'd'], [3600e3, 'h'], [60e3, 'min']];
  for (const [size, name] of units) {
    if (a >= size) {
      const n = Math.floor(a / size);
      return ms >= 0 ? `${n} ${name} ago` : `in ${n} ${name}`;
    }
  }
  return 'just now';
}

export function duration(seconds) {
  if (seconds % 86400 === 0) return `${seconds / 86400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  return `${seconds} s`;
}

export function num(n) { return Number(n || 0).toLocaleString('en-US'); }

/** plural is the noun for n of it: one for 1, else many (one + "s" unless given). */
export function plural(n, one, many = `${one}s`) { return Number(n) === 1 ? one : many; }

/** count is n and its noun: "1 delivery", "5 deliveries", "1,000 messages". */
export function count(n, one, many) { return `${num(n)} ${plural(n, one, many)}`; }

export function weight(w) { return Number(w).toFixed(3).replace(/0+$/, '').replace(/\.$/, '.0'); }

export function chip(text, cls = '') { return h('span', { class: `chip ${cls}` }, text); }

export function errorBox(err) { return h('div', { class: 'error', role: 'alert' }, err && err.message ? err.message : String(err)); }

export function card(title, ...children) {
  return h('section', { class: 'card' }, title ? h('h2', null, title) : null, ...children);
}

/** json pretty-prints a JSON value for a <pre>. */
export function json(v) { return JSON.stringify(v, null, 2); }

/**
 * pager renders a list a page at a time: load(cursor) returns {items, next};
 * each item is rendered by row and appended to list; a "More" button loads
 * the next page while there is one.
 */
export function pager(list, load, row, { more = 'More', empty = 'Nothing yet.' } = {}) {
  const box = h('div');
  const button = h('button', { type: 'button' }, more);
  let next = '';
  let count = 0;
  async function page() {
    button.disabled = true;
    try {
      const { items, next: n } = await load(next);
      for (const it of items) list.append(row(it));
      count += items.length;
      next = n || '';
      if (count === 0) list.replaceWith(h('p', { class: 'empty' }, empty));
      button.hidden = !next;
    } catch (err) {
      box.append(errorBox(err));
    } finally {
      button.disabled = false;
    }
  }
  button.addEventListener('click', page);
  box.append(list, button);
  page();
  return box;
}
