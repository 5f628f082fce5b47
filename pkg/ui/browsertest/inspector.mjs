// Drives the inspector in headless Chromium against a live Recall seeded by
// TestInspectorInBrowser (pkg/ui/browser_test.go), which passes the address,
// the tenants' keys and the seeded ids in the environment. Fails (exit 1) on
// the first page that does not show what was seeded; writes a screenshot of
// every page at desktop and phone width, and their list (index.txt), to
// $SCREENSHOTS.
import { chromium } from 'playwright-core';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const URL = env('INSPECTOR_URL');
const A = { tenant: env('TENANT_A'), key: env('KEY_A') };
const B = { tenant: env('TENANT_B'), key: env('KEY_B') };
const USER = env('USER_A');
const SESSION = env('SESSION_A');
const LATE = env('LATE_ID');
const SHOTS = env('SCREENSHOTS');
const HEAVY = env('HEAVY_USER');
const HEAVY_SESSION = env('HEAVY_SESSION');

const sizes = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };
const shots = [];
const timeout = 10_000;

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
  console.log(`ok   ${what}`);
}

// fits checks that a page at phone width needs no sideways scrolling.
async function fits(page, what) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 1, `${what} fits a phone's width (overflow ${overflow}px)`);
}

async function shot(page, name, what) {
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  shots.push(`${path}\t${what}`);
}

async function signIn(page, who) {
  await page.goto(URL);
  await page.fill('#login input[name=tenant]', who.tenant);
  await page.fill('#login input[name=key]', who.key);
  await page.click('#login button[type=submit]');
}

const userURL = `${URL}#/user/${encodeURIComponent(USER)}`;
const sessionURL = `${URL}#/session/${encodeURIComponent(SESSION)}`;

async function usersPage(page) {
  const start = Date.now();
  await page.goto(URL);
  await page.locator('#users a', { hasText: USER }).waitFor({ timeout });
  return Date.now() - start;
}

async function userPage(page, url = userURL, summaries = true) {
  const start = Date.now();
  await page.goto(url);
  await page.locator('#facts .fact', { hasText: '三体' }).waitFor({ timeout });
  await page.locator(summaries ? '#sessions .summary' : '#sessions li').first().waitFor({ timeout });
  await page.locator('#user-page .stats').waitFor({ timeout });
  return Date.now() - start;
}

async function sessionPage(page, url = sessionURL) {
  const start = Date.now();
  await page.goto(url);
  await page.locator('#messages .msg').first().waitFor({ timeout });
  await page.locator('#budget').waitFor({ timeout });
  await page.locator('#list table, #list p.empty').first().waitFor({ timeout });
  return Date.now() - start;
}

async function opsPage(page) {
  await page.goto(`${URL}#/ops`);
  await page.locator('#consumers table').waitFor({ timeout });
  await page.locator('#decayer table').waitFor({ timeout });
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
try {
  // Tenant A, desktop.
  const desk = await browser.newContext({ viewport: sizes.desktop, locale: 'en-US' });
  const page = await desk.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !/status of (401|403|404|409)/.test(m.text())) errors.push(m.text()); });

  await page.goto(URL);
  check(await page.locator('#login').isVisible(), 'the inspector asks for the tenant and key first');
  await signIn(page, A);
  await page.locator('#users a', { hasText: USER }).waitFor({ timeout });
  check(await page.locator('#tenant').innerText() === A.tenant, 'signed in as tenant A');
  check(await page.evaluate(() => sessionStorage.getItem('recall.tenant')) !== null, 'the credentials are kept in sessionStorage');
  await shot(page, 'users-desktop', 'users page, desktop: the tenant\'s users by latest activity');

  let ms = await userPage(page);
  console.log(`user page loaded in ${ms} ms`);
  check(ms < 3000, 'the user page loads quickly');
  const fact = page.locator('#facts .fact', { hasText: '三体' });
  check(await fact.locator('.weight').innerText().then((t) => /^\d/.test(t)), 'a fact shows its weight now');
  const d = await fact.locator('svg.chart path.curve').getAttribute('d');
  check(d && (d.match(/[MHV]/g) || []).length >= 4, `the weight chart is drawn as a path (${d})`);
  const kinds = await fact.locator('svg.chart circle').evaluateAll((cs) => cs.map((c) => c.getAttribute('class')));
  check(kinds.filter((k) => k === 'mention').length >= 2, `the chart marks both mentions of 三体 (${kinds.join(',')})`);
  check(kinds.includes('decay') && kinds.includes('expired'), 'the chart shows decay steps and the expiry');
  check(await fact.locator('svg.chart line.floor').count() === 1, 'the chart shows the archive floor');
  check(await page.locator('#facts .fact', { hasText: 'Dune' }).count() >= 1, 'an English fact is listed');
  check(await page.locator('#sessions li').count() === 3, 'the three sessions are on the timeline');
  check(await page.locator('#user-page').innerText().then((t) => t.includes('covers')), 'summaries show the range they cover');
  await page.locator('#shelf li', { hasText: '三体' }).waitFor({ timeout });
  check(await page.locator('#shelf').innerText().then((t) => t.includes('Dune') && t.includes('reading')), 'the shelf lists its items with their status');
  await page.locator('#recommendations li', { hasText: 'Foundation' }).waitFor({ timeout });
  check(await page.locator('#recommendations').innerText().then((t) => !t.includes('/book/823D')), 'recommendations leave out what is on the shelf');
  await page.screenshot({ path: join(SHOTS, 'readme.png'), clip: { x: 0, y: 0, width: 1280, height: 760 } });
  shots.push(`${join(SHOTS, 'readme.png')}\tuser page, desktop, its first screen (docs/inspector.png)`);
  await shot(page, 'user-desktop', 'user page, desktop: counts, interest facts with weight curves, shelf and recommendations, sessions with summaries');

  ms = await sessionPage(page);
  console.log(`session page loaded in ${ms} ms`);
  const msgs = page.locator('#messages');
  check(await msgs.innerText().then((t) => t.includes('推荐几本科幻小说') && t.includes('Tell me more about the third one')), 'messages in Chinese and English, in order');
  await page.locator('#messages details.tool-calls summary').first().click();
  check(await page.locator('#messages details.tool-calls pre').first().innerText().then((t) => t.includes('search_books') || t.includes('"q": "科幻"')), 'a tool call expands to its arguments and result');
  await page.locator('#messages details.presented summary').first().click();
  check(await page.locator('#messages details.presented li').count() === 3, 'the presented list expands to its three items');
  const third = page.locator('#list tbody tr').nth(2);
  check(await third.innerText().then((t) => t.includes('3') && t.includes('/book/19F0') && t.includes('Dune')), 'the current list shows item 3 with its ref');
  check(await page.locator('#budget tr[data-part=window]').innerText().then((t) => /\d/.test(t)), 'the preview shows what the window spent');
  check(await page.locator('#summaries li').count() >= 1, 'the session\'s summaries are listed');
  await page.fill('input[name=query]', '三体');
  await page.fill('input[name=budget]', '400');
  await page.click('#session-page form button[type=submit]');
  await page.locator('#budget tr[data-part=recalled]', { hasText: 'hits' }).waitFor({ timeout });
  check(await page.locator('#budget').innerText().then((t) => t.includes('budget')), 'a small budget shows what was cut and why');
  await page.locator('#prompt').evaluate((el) => { el.closest('details').open = true; });
  await shot(page, 'session-desktop', 'session page, desktop: context preview with the budget per part and the cuts, current list, summaries, messages with a tool call and a list expanded');

  await opsPage(page);
  check(await page.locator('#consumers').innerText().then((t) => t.includes('ingest') && t.includes('extractor')), 'consumers are listed with their counts');
  check(await page.locator('#decayer').innerText().then((t) => t.includes('facts') && t.includes('ok')), 'the decayer\'s last run is shown');
  const dl = page.locator('#dead-letters tr', { hasText: LATE });
  await dl.waitFor({ timeout });
  check(await dl.innerText().then((t) => t.includes('database refused')), 'the dead letter shows its reason');
  await shot(page, 'ops-desktop', 'operations page, desktop: a dead letter with its reason, consumers, the decayer\'s last run');
  check(await dl.innerText().then((t) => t.includes(`user ${USER}`)), 'the dead letter names its user');

  // Phone width: every page still reads (the operations page while it has
  // its dead letter).
  const phone = await browser.newContext({ viewport: sizes.phone, locale: 'zh-CN', isMobile: true, hasTouch: true });
  const pp = await phone.newPage();
  await signIn(pp, A);
  await usersPage(pp);
  await fits(pp, 'the users page');
  await shot(pp, 'users-phone', 'users page, phone width');
  await opsPage(pp);
  await pp.locator('#dead-letters tr', { hasText: LATE }).waitFor({ timeout });
  await fits(pp, 'the operations page');
  await shot(pp, 'ops-phone', 'operations page, phone width');

  await dl.locator('button.redrive').click();
  await page.locator('#redriven').waitFor({ timeout });
  await page.locator('#no-dead-letters').waitFor({ timeout });
  check(true, 're-drive removes the dead letter');
  // The re-driven turn goes through ingest like any other.
  let stored = false;
  for (let i = 0; i < 50 && !stored; i++) {
    await page.goto(`${URL}#/`);
    await sessionPage(page);
    stored = await page.locator(`#messages .msg[data-id="${LATE}"]`).count() === 1;
    if (!stored) await page.waitForTimeout(200);
  }
  check(stored, 'the re-driven turn is stored and shown in its session');

  // A user with thousands of messages: each page reads one page of them.
  await page.goto(`${URL}#/`);
  ms = await userPage(page, `${URL}#/user/${encodeURIComponent(HEAVY)}`, false);
  check(ms < 1000, `the user page of a user with thousands of messages loads in under a second (${ms} ms)`);
  await page.goto(`${URL}#/`);
  ms = await sessionPage(page, `${URL}#/session/${encodeURIComponent(HEAVY_SESSION)}`);
  check(ms < 1000, `a session of 1000 messages loads in under a second (${ms} ms)`);
  check(await page.locator('#messages .msg').count() === 50, 'its messages come 50 at a time');
  await page.click('#messages + button');
  await page.locator('#messages .msg').nth(99).waitFor({ timeout });
  check(await page.locator('#messages .msg').nth(50).innerText().then((t) => t.includes('第50条') || t.includes('Message 50')), 'the next 50 follow in order');

  await userPage(pp);
  await fits(pp, 'the user page');
  await shot(pp, 'user-phone', 'user page, phone width');
  await sessionPage(pp);
  await fits(pp, 'the session page');
  await shot(pp, 'session-phone', 'session page, phone width');
  await pp.goto(URL);
  await pp.locator('#users').waitFor({ timeout });

  // Tenant B sees none of tenant A's data, and A's key is refused for B.
  const other = await browser.newContext({ viewport: sizes.desktop });
  const bp = await other.newPage();
  await signIn(bp, B);
  await bp.locator('#users a', { hasText: 'bob' }).waitFor({ timeout });
  check(await bp.locator('#users').innerText().then((t) => !t.includes(USER)), 'tenant B\'s list has no tenant A users');
  await bp.goto(userURL);
  await bp.locator('#no-user').waitFor({ timeout });
  check(true, 'tenant B finds nothing stored about tenant A\'s user');
  await bp.goto(sessionURL);
  await bp.locator('#session-page .error').waitFor({ timeout });
  check(await bp.locator('#session-page .error').innerText().then((t) => t.includes('404')), 'tenant B cannot read tenant A\'s session');
  await bp.goto(`${URL}#/ops`);
  await bp.locator('#no-dead-letters').waitFor({ timeout });
  check(true, 'tenant B sees no dead letters of tenant A');
  await bp.evaluate(() => sessionStorage.clear());
  await signIn(bp, { tenant: B.tenant, key: A.key });
  await bp.locator('#login .error').waitFor({ timeout });
  check(await bp.locator('#login .error').innerText().then((t) => t.includes('not valid for this tenant')), 'tenant A\'s key is refused for tenant B');

  // Forget, with a confirmation that names what goes.
  await userPage(page);
  await page.click('#forget');
  await page.locator('#forget-counts li').first().waitFor({ timeout });
  const counts = await page.locator('#forget-counts').innerText();
  check(/\d+ messages/.test(counts) && /\d+ sessions/.test(counts) && /\d+ facts/.test(counts), `the confirmation names what will be removed: ${counts.replace(/\n/g, '; ')}`);
  await shot(page, 'forget-desktop', 'forget confirmation, desktop: what will be removed, counted by the API');
  await page.click('#confirm-forget');
  await page.locator('#forgotten').waitFor({ timeout });
  await page.goto(`${URL}#/`);
  await page.goto(userURL);
  await page.locator('#no-user').waitFor({ timeout });
  check(true, 'the forgotten user is gone');

  check(errors.length === 0, `no script errors on the pages (${errors.join(' | ')})`);
  writeFileSync(join(SHOTS, 'index.txt'), `${shots.join('\n')}\n`);
  console.log(shots.map((s) => s.split('\t')[0]).join('\n'));
} finally {
  await browser.close();
}
