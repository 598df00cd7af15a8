import t from 'tap';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { agentSandbox, eventually, reviewed } from '../helpers/agent.js';
import { asPage, raw, startUi, type UiServer } from '../helpers/ui.js';

// lazy ui's HTTP contract through the real server (the built CLI): the token and its cookie, the Host and Origin
// refusals, the CSP, the API's documents (the CLI's --json) and its errors (the CLI's error JSON, an HTTP status
// fitting the exit code), one server per repository, and Ctrl-C.

// One server (and one browser) for the whole walk: each step builds on the last.
t.test('lazy ui over HTTP', async (top) => {
  const box = await agentSandbox();
  top.teardown(() => box.sb.cleanup());
  const review = await reviewed(box, 'add the greeting');
  const backlog = await box.l.create('write the notes', '--accept', 'notes exist', '--tag', 'docs');
  const ui: UiServer = await startUi(box.sb, box.sb.env);
  top.teardown(() => ui.stop());
  const page = asPage(ui);

  await top.test('the first line of stdout is the address, on loopback, with a random token', async (t) => {
    t.match(ui.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
    const other = await startUi(box.sb, box.sb.env).catch((e: Error) => e);
    t.type(other, Error, 'a second server in the same repository does not start');
    t.match((other as Error).message, 'exited 5', 'busy');
    t.match((other as Error).message, `lazy ui is already serving this repository at ${ui.url}`, 'it says where');
  });

  await top.test('the token in the address is exchanged for a strict cookie and leaves the address', async (t) => {
    const r = await raw(ui.port, {
      path: `/tasks/${review}?token=${ui.token}`,
      headers: { host: `127.0.0.1:${ui.port}` },
    });
    t.equal(r.status, 303);
    t.equal(r.headers.location, `/tasks/${review}`, 'the token is gone from the address');
    const cookie = String(r.headers['set-cookie']);
    t.match(cookie, `lazy_ui_${ui.port}=${ui.token}`);
    t.match(cookie, /HttpOnly/);
    t.match(cookie, /SameSite=Strict/);
    const wrong = await raw(ui.port, { path: `/?token=${'x'.repeat(32)}`, headers: { host: `127.0.0.1:${ui.port}` } });
    t.equal(wrong.status, 401, 'a wrong token is refused');
    t.notOk(wrong.headers['set-cookie'], 'and gets no cookie');
  });

  await top.test('without the token nothing is served', async (t) => {
    const host = { host: `127.0.0.1:${ui.port}` };
    const shell = await raw(ui.port, { path: '/', headers: host });
    t.equal(shell.status, 401);
    t.notMatch(shell.body, /<script/, 'not even the page');
    const api = await raw(ui.port, { path: '/api/tasks', headers: host });
    t.equal(api.status, 401);
    t.equal(api.json().error.code, 'unauthorized', "the CLI's error document");
    const forged = await raw(ui.port, { path: '/api/tasks', headers: { ...host, cookie: `lazy_ui_${ui.port}=nope` } });
    t.equal(forged.status, 401, 'a wrong cookie is refused');
  });

  await top.test('a Host that is not this server is refused (DNS rebinding), whatever the cookie', async (t) => {
    for (const host of ['evil.example:' + ui.port, `127.0.0.1:${ui.port + 1}`, '127.0.0.1', 'attacker.test']) {
      const r = await page.get('/api/tasks', { host });
      t.equal(r.status, 403, host);
      t.equal(r.json().error.code, 'forbidden');
    }
    t.equal((await page.get('/api/tasks', { host: `localhost:${ui.port}` })).status, 200, 'localhost is loopback');
  });

  await top.test('the page: a shell with no inline script, a strict CSP, no CORS', async (t) => {
    const r = await page.get('/');
    t.equal(r.status, 200);
    t.match(r.body, `<meta name="lazy-token" content="${ui.token}">`);
    t.match(r.body, '<script src="/assets/app.js" defer></script>');
    const now = Number(/<meta name="lazy-now" content="(\d+)">/.exec(r.body)?.[1]);
    t.ok(Math.abs(now - Date.now()) < 60_000, "the page's time is the serving command's, given in the shell");
    t.notMatch(r.body, /<script>|<script [^s]|style=/, 'no inline script or style');
    const csp = String(r.headers['content-security-policy']);
    t.match(csp, "default-src 'none'");
    t.match(csp, "script-src 'self'");
    t.notMatch(csp, /unsafe-inline|unsafe-eval|https?:/, 'nothing inline, nothing from elsewhere');
    t.equal(r.headers['x-frame-options'], 'DENY');
    t.equal(r.headers['referrer-policy'], 'no-referrer', 'the token never leaks by a referrer');
    t.notOk(r.headers['access-control-allow-origin'], 'no CORS');
    const js = await page.get('/assets/app.js');
    t.equal(js.status, 200);
    t.match(js.headers['content-type'], 'text/javascript');
    t.notMatch(js.body, /cdn\.|unpkg\.com|jsdelivr|googleapis/, 'nothing fetched from a CDN');
  });

  await top.test('a change needs the token header and this origin', async (t) => {
    const msg = { message: 'from the page' };
    const noHeader = await page.post(`/api/tasks/${backlog}/comment`, msg, { 'x-lazy-token': '' });
    t.equal(noHeader.status, 401, 'no X-Lazy-Token: a cross-site form cannot send one');
    const foreign = await page.post(`/api/tasks/${backlog}/comment`, msg, { origin: 'http://evil.example' });
    t.equal(foreign.status, 403);
    t.match(foreign.json().error.message, "origin 'http://evil.example'");
    const site = await page.post(`/api/tasks/${backlog}/comment`, msg, { 'sec-fetch-site': 'cross-site' });
    t.equal(site.status, 403);
    const shown = (await box.l.json('show', backlog)).value;
    t.notOk(JSON.stringify(shown.turns).includes('from the page'), 'nothing refused was written');
    const ok = await page.post(`/api/tasks/${backlog}/comment`, msg);
    t.equal(ok.status, 200, ok.body);
    const after = (await box.l.json('show', backlog)).value;
    const comment = after.turns.find((x: { content: string }) => x.content === 'from the page');
    t.ok(comment, 'the comment is on the task');
    t.equal(comment.actor, 'human', "recorded as a person's");
  });

  await top.test("the API answers with the CLI's documents", async (t) => {
    const listed = (await page.get('/api/tasks')).json();
    const cli = (await box.l.json('list')).value;
    t.same(
      listed.map((r: { id: string; status: string }) => [r.id, r.status]),
      cli.map((r: { id: string; status: string }) => [r.id, r.status]),
      'GET /api/tasks is lazy list --json',
    );
    const tagged = (await page.get('/api/tasks?tag=docs')).json();
    t.same(
      tagged.map((r: { id: string }) => r.id),
      [backlog],
      'with its filters',
    );
    const shown = (await page.get(`/api/tasks/${review.slice(0, 5)}`)).json();
    t.equal(shown.id, review, 'a task by a unique prefix');
    t.ok(shown.available_actions.includes('accept'), 'its actions');
    t.notOk(shown.available_actions.includes('pair'), 'only those the page can take (pair needs a terminal)');
    const inbox = (await page.get('/api/inbox')).json();
    t.same(
      inbox.map((i: { id: string }) => i.id),
      [review],
      'GET /api/inbox is lazy inbox --json',
    );
    const board = (await page.get('/api/board')).json();
    t.same(
      board.inbox.map((i: { id: string }) => i.id),
      [review],
    );
    t.same(
      board.backlog.map((i: { id: string }) => i.id),
      [backlog],
    );
    t.same([board.working, board.queued, board.finished], [[], [], []], 'lists are [], never null');
    const usage = (await page.get('/api/usage?by=agent')).json();
    t.same(usage, (await box.l.json('usage', '--by', 'agent')).value, 'GET /api/usage is lazy usage --json');
    const diff = (await page.get(`/api/tasks/${review}/diff`)).json();
    t.match(diff.text, /^diff --git/m, 'the diff');
  });

  await top.test("errors are the CLI's error JSON with a fitting status", async (t) => {
    const missing = await page.get('/api/tasks/zzzzzzzz');
    t.equal(missing.status, 404);
    t.equal(missing.json().error.code, 'task_not_found');
    const refused = await page.post(`/api/tasks/${backlog}/accept`, {});
    t.equal(refused.status, 409);
    const viaCli = await box.l.json('accept', backlog, '--yes');
    t.same(refused.json(), viaCli.value, "the same code, message and details as the CLI's");
    const bad = await page.post(`/api/tasks/${backlog}/comment`, { message: 3 });
    t.equal(bad.status, 400);
    t.equal(bad.json().error.code, 'usage');
    const unknown = await page.post(`/api/tasks/${backlog}/acept`, {});
    t.equal(unknown.status, 400);
    t.match(unknown.json().error.message, "unknown action 'acept'; the nearest is 'accept'");
    const notJson = await page.post(`/api/tasks/${backlog}/comment`, 'x', { 'content-type': 'text/plain' });
    t.equal(notJson.status, 400, 'a body that is not JSON');
    const route = await page.get('/api/nothing');
    t.equal(route.status, 404);
  });

  await top.test('the board is, byte for byte, what inbox and list answer for the same selection', async (t) => {
    // One read of the index serves every section: each must still be the document its own command prints.
    const queued = await box.l.create('queued notes', '--tag', 'docs', '--accept', 'notes queued');
    t.equal((await box.l('queue', queued)).code, 0);
    await box.l.create('more notes');
    const closed = await box.l.create('dropped notes', '--tag', 'docs');
    t.equal((await box.l('close', closed)).code, 0);
    const get = async (path: string) => (await page.get(path)).json();
    const same = (a: unknown, b: unknown, what: string) => t.equal(JSON.stringify(a), JSON.stringify(b), what);
    for (const q of ['', 'tag=docs', 'search=NOTES']) {
      const board = await get(`/api/board?${q}`);
      const inbox = await get(`/api/inbox?${q}`);
      const inInbox = new Set(inbox.map((i: { id: string }) => i.id));
      const open = (rows: { id: string }[]) => rows.filter((r) => !inInbox.has(r.id));
      const list = (more: string) => get(`/api/tasks?${q}&${more}`);
      same(board.inbox, inbox, `${q || 'all'}: the inbox`);
      same(board.working, open(await list('status=working,merging,conflict')), `${q || 'all'}: working`);
      same(board.queued, open(await list('queued=true')), `${q || 'all'}: queued`);
      const backlog = (await list('status=backlog&sort=updated')).filter(
        (r: { schedule: { queued: boolean } }) => !r.schedule.queued,
      );
      same(board.backlog, backlog, `${q || 'all'}: the backlog, less what is queued`);
      same(board.finished, await list('status=complete,abandoned&sort=updated&limit=20'), `${q || 'all'}: finished`);
    }
    const all = await get('/api/board');
    t.same(
      all.queued.map((r: { id: string }) => r.id),
      [queued],
      'a queued task is in the queue',
    );
    t.notOk(
      all.backlog.some((r: { id: string }) => r.id === queued),
      'and not in the backlog',
    );
    t.same(
      all.finished.map((r: { id: string }) => r.id),
      [closed],
      'a closed one is finished',
    );
    t.ok(all.backlog.length >= 2 && all.inbox.length >= 1, 'every section the walk made has rows');
  });

  await top.test('Ctrl-C stops the server and frees the repository for the next one', async (t) => {
    const record = join(box.sb.dir, '.git', 'lazy', 'ui.json');
    t.ok(existsSync(record));
    t.equal(statSync(record).mode & 0o777, 0o600, "the address (and its token) is its owner's only");
    const { code, signal } = await ui.stop();
    t.equal(code, 0, `exits 0 (${signal ?? ''}: ${ui.stderr()})`);
    t.notOk(existsSync(record), 'the record is gone');
    const next = await startUi(box.sb, box.sb.env, ['--json']);
    t.not(next.token, ui.token, 'a new token each time');
    t.same(JSON.parse(next.first), { url: next.url, host: '127.0.0.1', port: next.port }, '--json: one line of JSON');
    const end = await next.stop();
    t.equal(end.code, 0, `exits 0 (${end.signal ?? ''}: ${next.stderr()})`);
  });

  await top.test('--host listens elsewhere, warns, and still answers only to its own names', async (t) => {
    const wide = await startUi(box.sb, box.sb.env, ['--host', '0.0.0.0']);
    t.teardown(() => wide.stop());
    const p = asPage(wide);
    await eventually(() => wide.stderr().includes('anyone who can reach it'), 10_000, 'the warning');
    t.match(wide.stderr(), 'lazy ui serves on 0.0.0.0', 'warned');
    t.equal((await p.get('/api/inbox')).status, 200, 'loopback');
    t.equal((await p.get('/api/inbox', { host: `${hostname()}:${wide.port}` })).status, 200, "the machine's name");
    t.equal((await p.get('/api/inbox', { host: `rebound.example:${wide.port}` })).status, 403, 'any other name');
    t.equal((await wide.stop()).code, 0);
  });

  await top.test(
    'what a request cannot make the server do: die, leak a stack, answer a change in another shape',
    async (t) => {
      const srv = await startUi(box.sb, box.sb.env);
      t.teardown(() => srv.stop());
      const p = asPage(srv);
      const bad = await new Promise<string>((resolve, reject) => {
        const sock = connect(srv.port, '127.0.0.1', () => sock.end('GET http://[/ HTTP/1.1\r\n\r\n'));
        let got = '';
        sock.on('data', (d) => (got += d));
        sock.on('end', () => resolve(got));
        sock.on('error', reject);
      });
      t.match(bad, /^HTTP\/1\.1 400/, 'a path that does not parse is refused');
      t.equal((await p.get('/api/inbox')).status, 200, 'and the server goes on');
      const escape = await p.get('/api/tasks/%E0');
      t.equal(escape.status, 400, "a malformed escape is the caller's mistake");
      t.notOk(escape.json().error.details.stack, 'with no stack trace');
      const method = await raw(srv.port, {
        method: 'DELETE',
        path: '/api/tasks',
        headers: {
          host: `127.0.0.1:${srv.port}`,
          cookie: `lazy_ui_${srv.port}=${srv.token}`,
          'x-lazy-token': srv.token,
        },
      });
      t.equal(method.status, 405);
      t.equal(method.headers.allow, 'GET, POST');
      const queued = await p.post(`/api/tasks/${backlog}/queue`, {});
      t.equal(queued.status, 200, queued.body);
      t.ok(Array.isArray(queued.json()), 'queue answers as `lazy queue <id> --json` prints: one {task} per id');
      t.equal(queued.json()[0].task.schedule.queued, true);
      const shell = await p.post(`/api/tasks/${backlog}/follow_up`, { command: 'touch /tmp/pwned' });
      t.equal(shell.status, 400, 'a follow-up command round is not started from the page');
      t.match(shell.json().error.message, /started on a terminal/);
      const unknown = await p.post(`/api/tasks/${backlog}/comment`, { message: 'x', colour: 'red' });
      t.match(
        unknown.json().error.message,
        /^comment: unknown argument 'colour'/,
        "in the action's words, not the tool's",
      );
      t.equal((await srv.stop()).code, 0);
    },
  );

  await top.test('--open hands the browser a file of its own, never the token on a command line', async (t) => {
    const seen = join(box.sb.home, 'browser-args');
    const browser = join(box.sb.home, 'browser.sh');
    writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$@" > '${seen}'\n`, { mode: 0o755 });
    // A $BROWSER list is tried in order: a program that is not there gives way to the next.
    const srv = await startUi(box.sb, { ...box.sb.env, BROWSER: `/nonexistent/browser:${browser}` }, ['--open']);
    t.teardown(() => srv.stop());
    const arg = await eventually(() => existsSync(seen) && readFileSync(seen, 'utf8').trim(), 10_000, 'the browser');
    t.match(arg, /^file:\/\//, 'a file address');
    t.notMatch(arg, srv.token, 'no token on the command line');
    const file = fileURLToPath(arg);
    t.equal(statSync(file).mode & 0o777, 0o600, "the file is its owner's only");
    t.match(readFileSync(file, 'utf8'), srv.url, 'and forwards to the address');
    t.equal((await srv.stop()).code, 0);
    t.notOk(existsSync(file), 'removed when the server stops');
  });
});
