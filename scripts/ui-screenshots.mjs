// The screenshots in docs/ui.md: `lazy demo --keep` makes a repository with a reviewed task, `lazy ui` serves it,
// and Debian's chromium (through puppeteer-core) photographs the board and the review. Run after `npm run build`:
// node scripts/ui-screenshots.mjs
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch } from 'puppeteer-core';

const root = join(import.meta.dirname, '..');
const lazy = join(root, 'bin', 'lazy.cjs');
const work = mkdtempSync(join(tmpdir(), 'lazy-shots-'));
const demo = spawnSync(process.execPath, [lazy, 'demo', '--keep'], { cwd: work, encoding: 'utf8' });
const repo = demo.stdout.match(/kept at (\S+)/)?.[1];
if (!repo) throw new Error(`lazy demo kept no repository: ${demo.stdout}${demo.stderr}`);
const run = (...args) => spawnSync(process.execPath, [lazy, ...args], { cwd: repo, encoding: 'utf8' });
// A second piece of work waiting on review, so the board has something in each of its first sections.
const list = JSON.parse(run('list', '--json').stdout);
const backlog = list.find((t) => t.status === 'backlog');
run('edit', backlog.id, '--accept', 'the notes name every change');
run('start', backlog.id);
run('wait', backlog.id, '--timeout', '30');
run('create', 'tidy the README', '--accept', 'no broken links', '--tag', 'docs');
const ui = spawn(process.execPath, [lazy, 'ui', '--port', '0'], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((res) => ui.stdout.once('data', (d) => res(String(d).split('\n')[0])));
const browser = await launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  userDataDir: mkdtempSync(join(work, 'profile-')),
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 800 });
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('[data-task]');
  await page.screenshot({ path: join(root, 'docs', 'images', 'ui-board.png') });
  await page.goto(`${new URL(url).origin}/tasks/${backlog.id}`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('.diff-file');
  await page.screenshot({ path: join(root, 'docs', 'images', 'ui-review.png'), fullPage: true });
} finally {
  await browser.close();
  ui.kill('SIGINT');
  rmSync(work, { recursive: true, force: true });
  rmSync(repo, { recursive: true, force: true });
}
console.log('wrote docs/images/ui-board.png and docs/images/ui-review.png');
