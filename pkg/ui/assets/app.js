// The inspector's shell: sign-in (tenant and key, kept in sessionStorage for
// this tab only), the header, and a hash router over the pages.
import { credentials, signIn, signOut, h, api, q, enc, time, num, card, pager, errorBox } from './core.js';
import { userPage } from './user.js';
import { sessionPage } from './session.js';
import { opsPage } from './ops.js';
import { webhooksPage, webhookPage } from './webhooks.js';

const main = document.getElementById('main');

function loginPage(message) {
  const tenant = h('input', { type: 'text', name: 'tenant', required: true, autocomplete: 'username', placeholder: 'acme' });
  const key = h('input', { type: 'password', name: 'key', autocomplete: 'current-password', placeholder: 'the tenant\'s key' });
  const form = h('form', { class: 'card login', id: 'login' },
    h('h1', null, 'Sign in'),
    h('p', { class: 'muted small' }, 'The inspector reads /v1 with your tenant and key, as any client does: it sees what the key may see. They are kept in this tab only.'),
    message ? errorBox(message) : null,
    h('label', { class: 'field' }, h('span', null, 'Tenant (X-Tenant-ID)'), tenant),
    h('label', { class: 'field' }, h('span', null, 'API key (leave empty when the server has no API_KEYS)'), key),
    h('button', { class: 'primary', type: 'submit' }, 'Sign in'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    signIn(tenant.value.trim(), key.value.trim());
    // A mistyped tenant id is a valid, empty tenant: say so rather than
    // show empty pages. One user is enough to know there is data.
    let empty = false;
    try {
      empty = (await api(`/v1/users${q({ limit: 1 })}`)).users.length === 0;
    } catch (err) {
      if (err.status === 401 || err.status === 403) return; // recall:auth shows the sign-in again, saying why
    }
    route();
    if (empty) main.prepend(emptyTenant(credentials().tenant));
  });
  return form;
}

/** emptyTenant says that the tenant signed in to holds no data, and how to sign in to another. */
function emptyTenant(tenant) {
  return h('div', { class: 'warning', id: 'empty-tenant', role: 'status' },
    h('b', null, `Tenant “${tenant}” has no data: `), 'no user has a session in it. ',
    'If you expected some, the tenant id may be mistyped (ids are case-sensitive). ',
    h('button', { type: 'button', onclick: () => { signOut(); route(); } }, 'Sign in to another tenant'));
}

function header() {
  const who = document.getElementById('who');
  const c = credentials();
  who.replaceChildren();
  if (c) {
    who.append(h('span', null, 'tenant ', h('b', { id: 'tenant' }, c.tenant)),
      h('button', { type: 'button', onclick: () => { signOut(); route(); } }, 'Sign out'));
  }
}

function usersPage() {
  const find = h('input', { type: 'search', name: 'user', placeholder: 'user id (exact) or the start of one', 'aria-label': 'user id' });
  const results = h('div');
  const show = (prefix) => {
    const body = h('tbody');
    const table = h('table', { class: 'stack', id: 'users' },
      h('thead', null, h('tr', null, h('th', null, 'user'), h('th', { class: 'num' }, 'sessions'),
        h('th', { class: 'num' }, 'messages'), h('th', null, 'last active'))),
      body);
    results.replaceChildren(pager(table, async (cursor) => {
      const r = await api(`/v1/users${q({ limit: 25, cursor, prefix })}`);
      return { items: r.users, next: r.next_cursor };
    }, (u) => h('tr', null,
      h('td', { 'data-label': 'user' }, h('a', { href: `#/user/${enc(u.user_id)}` }, u.user_id)),
      h('td', { class: 'num', 'data-label': 'sessions' }, num(u.sessions)),
      h('td', { class: 'num', 'data-label': 'messages' }, num(u.messages)),
      h('td', { 'data-label': 'last active' }, time(u.last_message_at))),
    { empty: prefix ? 'No user id starts with that.' : `No users with sessions yet in tenant “${credentials().tenant}”.` }));
  };
  const form = h('form', { class: 'inline' }, find,
    h('button', { class: 'primary', type: 'submit' }, 'Open user'),
    h('button', { type: 'button', onclick: () => show(find.value.trim()) }, 'Filter list'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (find.value.trim()) location.hash = `#/user/${enc(find.value.trim())}`;
  });
  show('');
  return h('div', { class: 'grid' },
    card('Find a user', form),
    card('Users by latest activity', results));
}

const routes = [
  [/^#\/user\/(.+)$/, (m) => userPage(decodeURIComponent(m[1])), 'users'],
  [/^#\/session\/(.+)$/, (m) => sessionPage(decodeURIComponent(m[1])), 'users'],
  [/^#\/ops$/, () => opsPage(), 'ops'],
  [/^#\/webhooks$/, () => webhooksPage(), 'webhooks'],
  [/^#\/webhook\/(.+)$/, (m) => webhookPage(decodeURIComponent(m[1])), 'webhooks'],
  [/^(#\/?)?$/, () => usersPage(), 'users'],
];

function route(message) {
  header();
  window.scrollTo(0, 0);
  if (!credentials()) {
    main.replaceChildren(loginPage(message));
    return;
  }
  const hash = location.hash;
  for (const [re, page, nav] of routes) {
    const m = hash.match(re);
    if (!m) continue;
    document.querySelectorAll('[data-nav]').forEach((a) => a.classList.toggle('on', a.dataset.nav === nav));
    main.replaceChildren(page(m));
    return;
  }
  main.replaceChildren(card('Not found', h('p', null, 'No page here. ', h('a', { href: '#/' }, 'Users'))));
}

window.addEventListener('hashchange', () => route());
window.addEventListener('recall:auth', (e) => {
  signOut();
  route(e.detail === 403 ? 'That key is not valid for this tenant.' : 'The key was refused (unknown or missing key).');
});
route();
