import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../core/git.js';
import { writeConfig } from '../../store/config/index.js';
import { openApp, closeApp, type App } from '../app.js';
import { createTask } from '../create.js';
import { commentTask } from '../comment.js';
import { closeTask } from '../close.js';
import { reopenTask } from '../reopen.js';
import { listTasks } from '../list.js';
import { showTask } from '../show.js';
import { taskLog } from '../log.js';
import { startTask } from '../start.js';
import { unblockTask } from '../unblock.js';
import { waitTask } from '../wait.js';
import { acceptTask, type AcceptReport } from '../accept/index.js';
import type { Io } from '../../core/io.js';
import type { ListedTask } from '../list.js';
import type { ShownTask } from '../show.js';
import type { LogLine } from '../log.js';
import { nodeBinary } from '../../core/proc.js';
import { taskRef } from '../../core/names.js';

// `lazy demo`: the whole loop in a throwaway repository, narrated, with a built-in
// scripted agent so it runs offline on a fresh machine: create, start, wait, review,
// unblock, wait, review again, accept.

export interface DemoStep {
  title: string;
  command: string;
  output: string;
}
export interface DemoReport {
  repository: string;
  kept: boolean;
  steps: DemoStep[];
}

/** How each step's output is shown: the command's own renderers, passed in from bin/ (ops never imports output/). */
export interface DemoRenderers {
  list(rows: ListedTask[]): string;
  show(task: ShownTask): string;
  log(lines: LogLine[]): string;
  accepted(r: AcceptReport): string;
}

/** The demo under way: its throwaway repository, the command renderers, and how a step is told. */
interface Demo {
  app: App;
  dir: string;
  r: DemoRenderers;
  step(title: string, command: string, output: string): void;
}

export async function runDemo(opts: {
  keep?: boolean;
  io: Io;
  render: DemoRenderers;
  say?: (s: DemoStep) => void;
}): Promise<DemoReport> {
  const r = opts.render;
  const dir = mkdtempSync(join(tmpdir(), 'lazy-demo-'));
  const steps: DemoStep[] = [];
  const step = (title: string, command: string, output: string) => {
    const s = { title, command, output };
    steps.push(s);
    opts.say?.(s);
  };
  await initRepository(dir);
  const app: App = await openApp({ io: opts.io, cwd: dir, json: false });
  try {
    const d: Demo = { app, dir, r, step };
    await useScriptedAgent(d);
    await storeRoundTrip(d);
    const task = await reviewLoop(d);
    await acceptAndLook(d, task);
  } finally {
    closeApp(app);
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
  return { repository: dir, kept: !!opts.keep, steps };
}

/** A fresh repository with one commit on main. */
async function initRepository(dir: string): Promise<void> {
  await git(['init', '-q', '-b', 'main'], { cwd: dir });
  await git(['config', 'user.name', 'Lazy Demo'], { cwd: dir });
  await git(['config', 'user.email', 'demo@lazy.invalid'], { cwd: dir });
  writeFileSync(join(dir, 'README.md'), '# demo project\n');
  await git(['add', 'README.md'], { cwd: dir });
  await git(['commit', '-q', '-m', 'initial commit'], { cwd: dir });
}

/** The built-in scripted agent (`lazy __demo-agent`), made this repository's agent. */
async function useScriptedAgent({ app, step }: Demo): Promise<void> {
  const agent = `"${nodeBinary()}" "${app.launcher.cliPath}" __demo-agent`;
  await writeConfig(
    app.repo,
    app.store.reader.objects,
    () => app.store.person(),
    'agents.demo.command',
    agent,
    'local',
  );
  await writeConfig(app.repo, app.store.reader.objects, () => app.store.person(), 'agent', 'demo', 'local');
  step(
    'Use the built-in scripted agent (offline)',
    'lazy config set agents.demo.command "…" --local && lazy config set agent demo --local',
    'agent = demo',
  );
}

/** A side task through the store alone: created, commented, closed and reopened. */
async function storeRoundTrip({ app, step }: Demo): Promise<void> {
  const { task: side } = await createTask(app, { goal: ['write the release notes'] });
  await commentTask(app, side.id, 'Wait until the greeting feature lands.');
  const closed = await closeTask(app, side.id, 'close', { reason: 'folded into the changelog' });
  const { task: reopened } = await reopenTask(app, side.id);
  step(
    'The store: create, comment, close, reopen',
    `lazy create … ; lazy comment ${side.id} ; lazy close ${side.id} ; lazy reopen ${side.id}`,
    `${side.id}: backlog → ${closed.task.status} → ${reopened.status}`,
  );
}

/** The task the demo is about: created, started, reviewed, sent back with feedback and reviewed again. */
async function reviewLoop({ app, r, step }: Demo): Promise<{ id: string }> {
  const { task } = await createTask(app, {
    goal: ['add a greeting function'],
    accept: ["greet('Ada') returns 'Hello, Ada!'"],
  });
  step(
    'Create a task with an acceptance criterion',
    `lazy create "add a greeting function" --accept "greet('Ada') returns 'Hello, Ada!'"`,
    task.id,
  );
  const started = await startTask(app, task.id, {});
  step(
    'Start it: the agent runs in its own worktree, detached',
    `lazy start ${task.id}`,
    `${task.id}: ${started.task.status} (run ${started.run?.id})`,
  );
  await waitTask(app, task.id, 60);
  step(
    'Wait for the turn, then review it',
    `lazy wait ${task.id} && lazy show ${task.id}`,
    r.show(await showTask(app, task.id)).split('\n\nbase:')[0]!,
  );
  await unblockTask(app, task.id, 'Also handle an empty name: greet it as a stranger.');
  step(
    'Ask for changes',
    `lazy unblock ${task.id} -m "Also handle an empty name: greet it as a stranger."`,
    'feedback recorded; the next turn is running',
  );
  await waitTask(app, task.id, 60);
  step(
    'Review the second turn',
    `lazy wait ${task.id} && lazy show ${task.id}`,
    r.show(await showTask(app, task.id)).split('\n\nbase:')[0]!,
  );
  return task;
}

/** The task accepted into main, then main, the list and the task's history looked at. */
async function acceptAndLook({ app, dir, r, step }: Demo, task: { id: string }): Promise<void> {
  const accepted = await acceptTask(app, task.id, { quiet: true });
  step('Accept: squash-merge into main', `lazy accept ${task.id} --yes`, r.accepted(accepted));
  const mainLog = (await git(['log', '--format=%h %s', '-3', 'main'], { cwd: dir })).stdout.trim();
  step('main now holds the work', 'git log --oneline main', mainLog);
  step('List everything', 'lazy list --all', r.list(await listTasks(app, { all: true })));
  step(
    "The task's history is ordinary git",
    `lazy log ${task.id}   # git log ${taskRef(task.id)}`,
    r.log(await taskLog(app, task.id)),
  );
}
