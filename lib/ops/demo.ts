import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../core/git.js';
import { openApp, closeApp, type App } from './app.js';
import { createTask } from './create.js';
import { commentTask } from './comment.js';
import { closeTask, reopenTask } from './close.js';
import { listTasks, showTask } from './query.js';
import { taskLog } from './log.js';
import { renderList, renderShow } from '../output/tasks.js';
import { renderLog } from '../output/log.js';

// `lazy demo`: the store's own lifecycle in a throwaway repository, narrated.

export interface DemoStep { title: string; command: string; output: string }
export interface DemoReport { repository: string; kept: boolean; steps: DemoStep[] }

export async function runDemo(opts: { keep?: boolean; say?: (s: DemoStep) => void }): Promise<DemoReport> {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-demo-'));
  const steps: DemoStep[] = [];
  const step = (title: string, command: string, output: string) => {
    const s = { title, command, output };
    steps.push(s);
    opts.say?.(s);
  };
  await git(['init', '-q', '-b', 'main'], { cwd: dir });
  await git(['config', 'user.name', 'Lazy Demo'], { cwd: dir });
  await git(['config', 'user.email', 'demo@lazy.invalid'], { cwd: dir });
  writeFileSync(join(dir, 'README.md'), '# demo project\n');
  await git(['add', 'README.md'], { cwd: dir });
  await git(['commit', '-q', '-m', 'initial commit'], { cwd: dir });
  const app: App = await openApp({ cwd: dir, json: false });
  try {
    const a = await createTask(app, { goal: ['fix the flaky login test'], accept: ['the login test passes 100 runs in a row'], tags: ['tests'] });
    step('Create a task', `lazy create "fix the flaky login test" --accept "…" --tag tests`, a.id);
    const b = await createTask(app, { goal: ['write the release notes'] });
    step('Create a second task', 'lazy create "write the release notes"', b.id);
    await commentTask(app, a.id, 'The failure shows up only when the suite runs in parallel.');
    step('Comment on the first', `lazy comment ${a.id} -m "…"`, 'comment recorded as a human turn');
    const closed = await closeTask(app, b.id, 'close', { reason: 'folded into the changelog task' });
    step('Close the second', `lazy close ${b.id} -m "…"`, `${b.id}: backlog → ${closed.task.status}`);
    const reopened = await reopenTask(app, b.id);
    step('Reopen it', `lazy reopen ${b.id}`, `${b.id}: abandoned → ${reopened.status}`);
    step('List the tasks', 'lazy list', renderList(await listTasks(app, {})));
    step('Show a task', `lazy show ${a.id}`, renderShow(await showTask(app, a.id)));
    step("Read the task's history as git", `lazy log ${b.id}   # git log refs/lazy/tasks/${b.id}`, renderLog(await taskLog(app, b.id)));
  } finally {
    closeApp(app);
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
  return { repository: dir, kept: !!opts.keep, steps };
}
