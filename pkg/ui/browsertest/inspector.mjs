// Drives the inspector in headless Chromium against a live Recall seeded by
// TestInspectorInBrowser (pkg/ui/browser_test.go), which passes the address,
// the tenants' keys and the seeded ids in the environment. Prints every
// check and exits 1 when one failed (a page that never shows what a later
// step needs stops the run there); writes a screenshot of every page at
// desktop and phone width, and their list (index.txt), to $SCREENSHOTS.
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
const C = { tenant: env('TENANT_C'), key: env('KEY_C') };
const USER = env('USER_A');
const SESSION = env('SESSION_A');
const LATE = env('LATE_ID');
const DUP = env('DUP_ID');
// DUP_UNTIL is when the stream forgets the duplicate's id (UTC,
// "2006-01-02 15:04:05"), as the test computed it from the stream.
const DUP_UNTIL = env('DUP_UNTIL');
const SHOTS = env('SCREENSHOTS');
const HEAVY = env('HEAVY_USER');
const HEAVY_SESSION = env('HEAVY_SESSION');
const WEBHOOK = env('WEBHOOK_ID');

const sizes = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };
const shots = [];
const timeout = 10_000;
// expected400 counts the 400 answers the test provokes on purpose.
let expected400 = 0;

const failures = [];

function check(cond, what) {
  if (cond) {
    console.log(`ok   ${what}`);
    return;
  }
  console.log(`FAIL ${what}`);
  failures.push(what);
}

// seen waits for a locator (to appear, or opts.state) as a check: false,
// and a failure, when it does not within the timeout.
async function seen(locator, what, opts = {}) {
  try {
    await locator.waitFor({ timeout, ...opts });
    check(true, what);
    return true;
  } catch {
    check(false, `${what} (waited ${timeout / 1000} s)`);
    return false;
  }
}

// fits checks that a page at phone width needs no sideways scrolling.
async function fits(page, what) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 1, `${what} fits a phone's width (overflow ${overflow}px)`);
}

// wide checks that a card's table uses the width of the page's content.
async function wide(page, selector, what) {
  const r = await page.evaluate((sel) => {
    const main = document.querySelector('main');
    const cs = getComputedStyle(main);
    const content = main.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    return { table: document.querySelector(sel).getBoundingClientRect().width, content };
  }, selector);
  check(r.table >= 0.9 * r.content, `${what} uses the page's width (${Math.round(r.table)} of ${Math.round(r.content)}px)`);
}

// lineCount is how many lines the text of each element matching selector
// takes in the page.
async function lineCounts(page, selector) {
  return page.locator(selector).evaluateAll((els) => els.map((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
    return [el.textContent.trim(), tops.size];
  }));
}

// oneLine checks that the text of every element matching selector is on one
// line (a button that wraps reads "Re-/dri/ve").
async function oneLine(page, selector, what) {
  const counts = await lineCounts(page, selector);
  const wrapped = counts.filter(([, n]) => n !== 1);
  check(counts.length > 0 && wrapped.length === 0, `${what} on one line (${JSON.stringify(wrapped)})`);
}

// wholeWords checks that no word of the text under selector is broken across
// lines. Ids and payloads (code, links, pre, .subject) may break anywhere:
// they can be longer than a phone is wide.
async function wholeWords(page, selector, what) {
  const broken = await page.evaluate((sel) => {
    const out = [];
    for (const root of document.querySelectorAll(sel)) {
      const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        if (n.parentElement.closest('code, a, pre, .subject')) continue;
        for (const m of n.data.matchAll(/\S{2,}/g)) {
          const range = document.createRange();
          range.setStart(n, m.index);
          range.setEnd(n, m.index + m[0].length);
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (tops.size > 1) out.push(m[0]);
        }
      }
    }
    return out;
  }, selector);
  check(broken.length === 0, `${what}: no word broken across lines (${broken.join(', ')})`);
}

// plurals checks that no count of one is followed by a plural ("1 deliveries").
async function plurals(page, selector, what) {
  const text = await page.locator(selector).innerText();
  const bad = text.match(/(?<![\d.,])1 (deliveries|messages|sessions|hits|facts|items|summaries|lists|tool calls|mentions|entries|batches|consumers)\b/g) || [];
  check(bad.length === 0, `${what}: a count of one takes the singular (${bad.join(', ')})`);
}

// placeholders checks that every visible input's placeholder is shown whole
// and in a colour of its own, lighter than what is typed.
async function placeholders(page, what) {
  const r = await page.evaluate(() => {
    const canvas = document.createElement('canvas').getContext('2d');
    const luminance = (c) => {
      const [r, g, b] = c.match(/[\d.]+/g).map(Number);
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    return [...document.querySelectorAll('input[placeholder]')].filter((el) => el.offsetParent !== null).map((el) => {
      const cs = getComputedStyle(el);
      const ph = getComputedStyle(el, '::placeholder');
      canvas.font = `${ph.fontStyle} ${ph.fontWeight} ${ph.fontSize} ${ph.fontFamily}`;
      const text = Math.ceil(canvas.measureText(el.placeholder).width);
      const room = Math.floor(el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight));
      return { name: el.name, text, room, lighter: luminance(ph.color) > luminance(cs.color) + 40 };
    });
  });
  const bad = r.filter((p) => p.text > p.room || !p.lighter);
  check(r.length > 0 && bad.length === 0, `${what}: ${r.length} placeholders shown whole and lighter than typed text (${JSON.stringify(bad)})`);
}

// boldCJK checks that Chinese text meant to be bold is drawn with a bold
// face: the face Chromium picked for the element, and more ink than the
// same characters at normal weight in the element's font stack.
async function boldCJK(page, locator, what) {
  await locator.evaluate((el) => el.setAttribute('data-probe', ''));
  const selector = '[data-probe]';
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument');
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
  const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
  await cdp.detach();
  const ink = await locator.evaluate((el) => {
    el.removeAttribute('data-probe');
    const cs = getComputedStyle(el);
    const text = el.textContent.replace(/[^\u3400-\u9fff]/g, '');
    const draw = (weight) => {
      const c = document.createElement('canvas');
      c.width = 64 * text.length + 16;
      c.height = 96;
      const g = c.getContext('2d');
      g.font = `${weight} 64px ${cs.fontFamily}`;
      g.fillText(text, 8, 72);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) n += d[i];
      return n;
    };
    return { weight: cs.fontWeight, text, normal: draw('normal'), bold: draw(cs.fontWeight) };
  });
  const faces = fonts.map((f) => f.postScriptName || f.familyName);
  check(ink.text.length > 0 && Number(ink.weight) >= 600 && faces.some((f) => /bold/i.test(f)),
    `${what} is drawn with a bold face (${faces.join(', ')}; weight ${ink.weight})`);
  check(ink.bold > 1.1 * ink.normal, `${what} has more ink bold than normal (${ink.bold} against ${ink.normal})`);
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
  page.on('console', (m) => {
    if (m.type() !== 'error' || /status of (401|403|404|409)/.test(m.text())) return;
    // A 400 the test asks for on purpose (a bad edit typed into a form) is
    // the page's answer, not an error of it; any other is.
    if (/status of 400/.test(m.text()) && expected400 > 0) { expected400--; return; }
    errors.push(m.text());
  });

  await page.goto(URL);
  check(await page.locator('#login').isVisible(), 'the inspector asks for the tenant and key first');
  await placeholders(page, 'the sign-in page');
  await signIn(page, A);
  await page.locator('#users a', { hasText: USER }).waitFor({ timeout });
  check(await page.locator('#empty-tenant').count() === 0, 'a tenant with data is not told it has none');
  await placeholders(page, 'the users page');
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
  await page.locator('#attributes-about li', { hasText: '花生' }).waitFor({ timeout });
  check(await page.locator('#attributes-about').innerText().then((t) => t.includes('allergies') && t.includes('杭州') && t.includes('explicit')),
    'the user page shows who the user is, with each value\'s source');
  check(await page.locator('#attributes-asked').innerText().then((t) => t.includes('reply_language') && t.includes('中文')),
    'and what they asked for');
  check(await page.locator('#attributes-about li', { hasText: 'active_hours' }).innerText().then((t) => t.includes('derived') && t.includes('UTC')),
    'and the habits derived from their messages, with their source');
  const ownWords = page.locator('#attributes-said li', { hasText: 'terrified of flying' });
  await ownWords.waitFor({ timeout });
  check(await ownWords.innerText().then((t) => t.includes("I'm terrified of flying, so we always take the train.") && t.includes('stated') && t.includes('s-old') && t.includes('old-4')),
    'the user page shows what the user said of themselves, in their words, with its session and turn');
  check(await page.locator('#attributes-about').innerText().then((t) => !t.includes('terrified')), 'statements are apart from the keys');
  await page.locator('#attributes-about li', { hasText: '杭州' }).getByRole('button', { name: 'Remove' }).click();
  await page.locator('#attributes-about li', { hasText: '杭州' }).waitFor({ state: 'detached', timeout });
  check(true, 'removing a value takes it off the page once stored');
  await page.locator('#attribute-key').fill('tone');
  await page.locator('#attribute-value').fill('casual');
  await page.locator('#attribute-set').click();
  await page.locator('#attributes-asked li', { hasText: 'casual' }).waitFor({ timeout });
  await page.locator('#attributes details summary').click();
  check(await page.locator('#attributes-history').innerText().then((t) => t.includes('retracted') && t.includes('杭州')),
    'the history shows the removed value as retracted');
  await page.locator('#attribute-key').fill('shoe_size');
  await page.locator('#attribute-value').fill('42');
  expected400++;
  await page.locator('#attribute-set').click();
  await page.locator('#attributes .error').waitFor({ timeout });
  check(await page.locator('#attributes .error').innerText().then((t) => t.includes('shoe_size')), 'a key the schema lacks is refused, named');
  await plurals(page, '#user-page', 'the user page');
  await boldCJK(page, page.locator('#user-id'), `the user's Chinese name (${USER}) as the page's title`);
  await boldCJK(page, page.locator('#facts .fact .name', { hasText: '三体' }), 'the Chinese name of a fact');
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
  await placeholders(page, 'the session page');
  // The preview lists what the search recalled, with dates and sessions.
  await page.fill('input[name=query]', '三体');
  await page.click('#session-page form button[type=submit]');
  await page.locator('#budget tr[data-part=recalled]', { hasText: 'hit' }).waitFor({ timeout });
  const said = await page.locator('#budget tr[data-part=recalled]').innerText();
  const hits = Number((said.match(/(\d+) hits?\b/) || [])[1]);
  if (await seen(page.locator('#recalled tbody tr').first(), 'the preview lists the recalled hits')) {
    const rows = await page.locator('#recalled tbody tr').evaluateAll((trs) => trs.map((tr) => ({
      text: tr.innerText, session: (tr.querySelector('a[href^="#/session/"]') || {}).textContent || '',
    })));
    check(hits > 0 && rows.length === hits, `the preview lists the ${hits} recalled hits it counts (${rows.length} listed)`);
    check(rows.every((r) => /\d{4}-\d{2}-\d{2}/.test(r.text)), 'every recalled hit shows its date');
    check(rows.some((r) => r.session === 's-old' || r.session === 's-mid') && rows.some((r) => r.text.includes('三体')),
      `recalled messages link their sessions (${rows.map((r) => r.session).join(', ')})`);
  }
  await plurals(page, '#session-page', 'the session page');
  await page.fill('input[name=budget]', '400');
  await page.click('#session-page form button[type=submit]');
  await page.locator('#preview > p', { hasText: 'of 400 budget' }).waitFor({ timeout });
  check(await page.locator('#budget').innerText().then((t) => t.includes('budget')), 'a small budget shows what was cut and why');
  // A message that names a time says how it was read.
  check(await page.locator('#during').count() === 0, 'a message without a time has no note of one');
  await page.fill('input[name=query]', '上周我们聊了哪些书？');
  await page.click('#session-page form button[type=submit]');
  const during = page.locator('#during');
  if (await seen(during, 'a message that names a time says how it was read')) {
    check(await during.innerText().then((t) => /\d{4}-\d{2}-\d{2} \d{2}:\d{2} – \d{4}-\d{2}-\d{2}/.test(t)), 'the time is read as a span of dates');
  }
  await page.locator('#prompt').evaluate((el) => { el.closest('details').open = true; });
  await shot(page, 'session-desktop', 'session page, desktop: context preview with the budget per part and the cuts, current list, summaries, messages with a tool call and a list expanded');

  await opsPage(page);
  check(await page.locator('#consumers').innerText().then((t) => t.includes('ingest') && t.includes('extractor')), 'consumers are listed with their counts');
  check(await page.locator('#decayer').innerText().then((t) => t.includes('facts') && t.includes('ok')), 'the decayer\'s last run is shown');
  const dl = page.locator('#dead-letters tbody tr', { hasText: LATE });
  await dl.first().waitFor({ timeout });
  check(await dl.count() === 1, 'a message three consumers gave up on is one row');
  const late = await dl.first().innerText();
  check(['ingest', 'extractor', 'indexer'].every((c) => late.includes(c)), 'the row names its three consumers');
  check(await dl.locator('button').count() === 1, 'with one re-drive button');
  check(late.includes('database refused') && late.includes('no JSON') && late.includes('timed out'), 'each consumer\'s reason is shown');
  check(late.includes('1 delivery') && late.includes('5 deliveries'), 'deliveries are counted in the singular and the plural');
  check(late.includes(`user ${USER}`), 'the dead letter names its user');
  await plurals(page, '#ops-page', 'the operations page');
  await wide(page, '#dead-letters table', 'the dead-letter table');
  await oneLine(page, '#dead-letters button.redrive', 'the re-drive buttons');
  await wholeWords(page, '#dead-letters, #consumers', 'the operations page at desktop width');
  // Inside the duplicate window, the refusal says when a re-drive will work.
  const dupRow = page.locator('#dead-letters tbody tr', { hasText: DUP });
  await dupRow.locator('button.redrive').click();
  const refused = page.locator('#dead-letters-status .error');
  if (await seen(refused, 'the refused re-drive is reported')) {
    const refusal = await refused.innerText();
    check(refusal.includes('still_duplicate') && refusal.includes(DUP_UNTIL), `the refusal says when re-drive will work (${DUP_UNTIL}): ${refusal}`);
  }
  check(await dupRow.count() === 1, 'the refused dead letter is kept');
  await shot(page, 'ops-desktop', 'operations page, desktop: a message three consumers gave up on as one row, a refused re-drive saying when it will work, consumers, the decayer\'s last run');

  // Phone width: every page still reads (the operations page while it has
  // its dead letter).
  const phone = await browser.newContext({ viewport: sizes.phone, locale: 'zh-CN', isMobile: true, hasTouch: true });
  const pp = await phone.newPage();
  await pp.goto(URL);
  await placeholders(pp, 'the sign-in page at phone width');
  await signIn(pp, A);
  await usersPage(pp);
  await fits(pp, 'the users page');
  await shot(pp, 'users-phone', 'users page, phone width');
  await opsPage(pp);
  await pp.locator('#dead-letters tr', { hasText: LATE }).first().waitFor({ timeout });
  await fits(pp, 'the operations page');
  await oneLine(pp, '#dead-letters button.redrive', 'the re-drive buttons at phone width');
  await wholeWords(pp, '#dead-letters, #consumers', 'the operations page at phone width');
  await shot(pp, 'ops-phone', 'operations page, phone width');

  await dl.first().locator('button.redrive').click();
  await page.locator('#redriven').waitFor({ timeout });
  await seen(page.locator('#dead-letters tbody tr', { hasText: LATE }), 'the re-driven message\'s row goes', { state: 'detached' });
  await page.locator('#dead-letters tbody tr', { hasText: DUP }).waitFor({ timeout });
  check(await page.locator('#redriven').innerText().then((t) => t.includes('3 consumers')), 're-drive removes the message\'s three dead letters');
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
  await boldCJK(pp, pp.locator('#user-id'), 'the user\'s Chinese name at phone width');
  await shot(pp, 'user-phone', 'user page, phone width');
  await sessionPage(pp);
  await fits(pp, 'the session page');
  await placeholders(pp, 'the session page at phone width');
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
  // A tenant with no data says so when signed in to.
  await signIn(bp, C);
  if (await seen(bp.locator('#empty-tenant'), 'signing in to a tenant with no data says so')) {
    check(await bp.locator('#empty-tenant').innerText().then((t) => t.includes(C.tenant)), 'naming the tenant');
  }
  await shot(bp, 'empty-tenant-desktop', 'users page, desktop, signed in to a tenant with no data');
  await bp.evaluate(() => sessionStorage.clear());
  await signIn(bp, { tenant: B.tenant, key: A.key });
  await bp.locator('#login .error').waitFor({ timeout });
  check(await bp.locator('#login .error').innerText().then((t) => t.includes('not valid for this tenant')), 'tenant A\'s key is refused for tenant B');

  // Webhooks: the endpoint, its failed deliveries, one re-driven until the
  // page shows it delivered.
  await page.goto(`${URL}#/webhooks`);
  if (await seen(page.locator(`#webhooks tr[data-webhook="${WEBHOOK}"]`), 'the webhooks page lists the endpoint')) {
    await page.locator(`#webhooks tr[data-webhook="${WEBHOOK}"] a`).click();
    if (await seen(page.locator('#failures tr[data-status="failed"] button.redrive').first(), 'the endpoint\'s page lists its failed deliveries with a re-drive')) {
      check(await page.locator('#webhook-counts').innerText().then((t) => /\d+ failed/.test(t)), 'the endpoint\'s counts name its failures');
      check(await page.locator('#failures .reason').first().innerText().then((t) => t.includes('503')), 'a failure says why (503)');
      await plurals(page, '#webhook-page', 'the webhook page');
      await shot(page, 'webhook-desktop', 'webhook page, desktop: an endpoint\'s counts, failed deliveries with their reasons and re-drive buttons, recent deliveries');
      const row = page.locator('#failures tr[data-status="failed"]').first();
      const change = await row.getAttribute('data-change');
      await row.locator('button.redrive').click();
      await seen(page.locator('#redriven'), 're-drive answers on the page');
      let delivered = false;
      for (let i = 0; i < 50 && !delivered; i++) {
        await page.goto(`${URL}#/webhooks`);
        await page.goto(`${URL}#/webhook/${encodeURIComponent(WEBHOOK)}`);
        await page.locator('#deliveries table').waitFor({ timeout });
        delivered = await page.locator(`#deliveries tr[data-change="${change}"][data-status="delivered"]`).count() > 0;
        if (!delivered) await page.waitForTimeout(200);
      }
      check(delivered, 'the re-driven delivery is shown delivered');
    }
  }
  await pp.goto(`${URL}#/webhook/${encodeURIComponent(WEBHOOK)}`);
  await pp.locator('#deliveries table').waitFor({ timeout });
  await shot(pp, 'webhook-phone', 'webhook page, phone width');

  // Forget, with a confirmation that names what goes.
  await userPage(page);
  await page.click('#forget');
  await page.locator('#forget-counts li').first().waitFor({ timeout });
  const counts = await page.locator('#forget-counts').innerText();
  await plurals(page, '#forget-counts', 'the forget confirmation');
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
  if (failures.length > 0) {
    console.log(`${failures.length} checks failed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
    process.exitCode = 1;
  }
} finally {
  await browser.close();
}
