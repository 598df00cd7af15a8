import t from 'tap';
import { join } from 'node:path';
import { statSync } from 'node:fs';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { agentSandbox, eventually, reviewed } from '../helpers/agent.js';
import { gitSync, ROOT } from '../helpers/env.js';
import { launchBrowser, startUi } from '../helpers/ui.js';

// lazy ui in a real browser (Debian's chromium through puppeteer-core): a reviewer opens the printed address, sees
// the inbox, reads a diff and accepts, all in the page; what changes elsewhere shows without a reload; a task's
// text is never markup. Screenshots of the board and of a review are left in the test's folder.

const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';

// One server (and one browser) for the whole walk: each step builds on the last.
t.test('lazy ui in chromium', async (top) => {
  const box = await agentSandbox();
  top.teardown(() => box.sb.cleanup());
  const review = await reviewed(box, 'add the greeting');
  const hostile = await box.l.create(XSS, '--accept', 'is shown as text');
  const ui = await startUi(box.sb, box.sb.env);
  top.teardown(() => ui.stop());
  const browser: Browser = await launchBrowser(box.sb.home);
  top.teardown(() => browser.close());
  const page: Page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  // The live channel never idles the network: each step waits for what it looks for instead.
  // What the page's script throws is a failure of the page: collected and checked at the end.
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('dialog', (d) => void d.accept());

  const shot = (name: string) => {
    const path = join(box.sb.dir, '..', `${name}.png`);
    return page.screenshot({ path, fullPage: true }).then(() => path);
  };
  const text = () => page.evaluate(() => document.body.innerText);

  await top.test('the board lists the tasks, what needs a person first', async (t) => {
    await page.goto(ui.url, { waitUntil: 'domcontentloaded' });
    t.equal(new URL(page.url()).search, '', 'the token left the address bar');
    await page.waitForSelector(`[data-task="${review}"]`);
    const order = await page.$$eval('[data-task]', (rows) => rows.map((r) => r.getAttribute('data-task')));
    t.equal(order[0], review, 'the task waiting on review comes first');
    t.ok(order.includes(hostile), 'the backlog is listed');
    const path = await shot('board');
    t.ok(statSync(path).size > 10_000, `a screenshot of the board: ${path}`);
  });

  await top.test("a task's text is shown as text and never runs", async (t) => {
    const shown = await text();
    t.ok(shown.includes(XSS), 'the goal shows literally on the board');
    await page.goto(`${ui.origin}/tasks/${hostile}`, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction((x) => document.body.innerText.includes(x), {}, XSS);
    t.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined, 'nothing ran');
    t.equal(await page.$$eval('img', (imgs) => imgs.length), 0, 'no element was made from it');
  });

  await top.test('a view ends its reads when it is left or refreshed again, and shows no error for them', async (t) => {
    await page.goto(`${ui.origin}/`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector(`[data-task="${review}"]`);
    // The board's queries are held at the browser's network layer: only the page itself can end them.
    const held: HTTPRequest[] = [];
    const ended = new Set<HTTPRequest>();
    const onRequest = (r: HTTPRequest) => {
      if (new URL(r.url()).pathname === '/api/board') held.push(r);
      else void r.continue();
    };
    const onFailed = (r: HTTPRequest) => {
      if (r.failure()?.errorText === 'net::ERR_ABORTED') ended.add(r);
    };
    await page.setRequestInterception(true);
    page.on('request', onRequest);
    page.on('requestfailed', onFailed);
    try {
      await page.click('#filters button[type="submit"]');
      await eventually(() => held.length >= 1, 10_000, 'the first query');
      const first = held[0]!;
      await page.click('#filters button[type="submit"]');
      await eventually(() => ended.has(first), 10_000, 'the page to end the query a newer one replaced');
      t.pass('a newer refresh ended the query before it');
      // On the board itself, once the page has handled the ended query (its rejection settles in a task or two):
      // no alert drawn for it.
      await page.evaluate(() => new Promise((r) => setTimeout(r, 100)));
      t.equal(
        await page.$$eval('.error[role=alert]', (e) => e.length),
        0,
        'the ended query drew no error on the board',
      );
      t.notMatch(await text(), /did not answer/, 'nor a server that did not answer');
      const open = [...held];
      await page.click(`[data-task="${review}"]`);
      await page.waitForSelector('.diff-file');
      await eventually(() => open.every((r) => ended.has(r)), 10_000, 'the page to end the board it left');
      t.pass("leaving the board ended its query (the server's call ends with it)");
      t.equal(await page.$$eval('.error[role=alert]', (e) => e.length), 0, 'an ended query is no error');
      t.notMatch(await text(), /did not answer/, 'nor a server that did not answer');
    } finally {
      page.off('request', onRequest);
      page.off('requestfailed', onFailed);
      for (const r of held) if (!r.isInterceptResolutionHandled()) await r.continue().catch(() => {});
      await page.setRequestInterception(false);
    }
  });

  await top.test("a task's page shows its review and its diff, per file", async (t) => {
    await page.goto(`${ui.origin}/tasks/${review}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.diff-file');
    const files = await page.$$eval('.diff-file', (f) => f.map((x) => (x as HTMLElement).innerText));
    t.equal(files.length, 1);
    t.match(files[0], 'work-1.txt');
    const added = await page.$$eval('.diff-file .add', (l) => l.map((x) => (x as HTMLElement).innerText));
    t.ok(
      added.some((l) => l.includes('turn 1')),
      'the added line, marked as added',
    );
    const actions = await page.$$eval('[data-action]', (b) => b.map((x) => x.getAttribute('data-action')));
    t.ok(actions.includes('accept') && actions.includes('unblock'), 'the actions the task lists');
    t.notOk(actions.includes('pair'), 'and only those the page can take');
    const path = await shot('review');
    t.ok(statSync(path).size > 10_000, `a screenshot of the review: ${path}`);
  });

  await top.test('a comment made on the command line appears without a reload', async (t) => {
    await page.evaluate(() => ((window as unknown as { __same?: boolean }).__same = true));
    const r = await box.l('comment', review, '-m', 'checked on the terminal');
    t.equal(r.code, 0);
    await page.waitForFunction(() => document.body.innerText.includes('checked on the terminal'), { timeout: 30_000 });
    t.equal(
      await page.evaluate(() => (window as unknown as { __same?: boolean }).__same),
      true,
      'the same page, not reloaded',
    );
  });

  await top.test("a reviewer's command run on the terminal shows in the review, apart from the agent's", async (t) => {
    const r = await box.l('run', review, '--', 'sh', '-c', 'echo the tests pass');
    t.equal(r.code, 0, r.stderr);
    const item = await page.waitForSelector('.commands.people li', { timeout: 30_000 });
    t.match(await item!.evaluate((li) => (li as HTMLElement).innerText), /ok\s*sh -c 'echo the tests pass'/);
  });

  await top.test('a submitted task shows its pull request as a link', async (t) => {
    const remote = join(box.sb.home, 'remote.git');
    gitSync(box.sb.home, box.sb.env, ['init', '-q', '--bare', remote]);
    gitSync(box.sb.dir, box.sb.env, ['remote', 'add', 'origin', remote]);
    const gh = `"${process.execPath}" "${join(ROOT, 'test', 'fixtures', 'fake-gh.mjs')}" pr create`;
    t.equal((await box.l('config', 'set', 'forge.pr_command', gh)).code, 0);
    const submitted = await box.l.json('submit', review);
    t.ok(submitted.value.url, `the forge answered with an address (${submitted.run.stderr})`);
    const link = await page.waitForSelector('.pr a', { timeout: 30_000 });
    t.equal(
      await link!.evaluate((a) => (a as HTMLAnchorElement).href),
      submitted.value.url,
      'the link, without a reload',
    );
  });

  await top.test('accept through the page lands the work on the target branch', async (t) => {
    t.throws(() => gitSync(box.sb.dir, box.sb.env, ['cat-file', '-e', 'main:work-1.txt']), 'not on main yet');
    await page.click('[data-action="accept"]');
    await page.waitForSelector('[data-action="confirm"]');
    await page.click('[data-action="confirm"]');
    await page.waitForFunction(() => /\bcomplete\b/.test(document.body.innerText), { timeout: 20_000 });
    t.equal(gitSync(box.sb.dir, box.sb.env, ['show', 'main:work-1.txt']), 'turn 1\n', 'the work is on main');
    const shown = (await box.l.json('show', review)).value;
    t.equal(shown.status, 'complete');
  });

  await top.test('the page threw nothing', async (t) => {
    t.same(pageErrors, []);
  });
});
