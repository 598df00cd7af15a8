import { spawn } from 'node:child_process';
import { ownSession, selfIdentity } from '../core/proc.js';
import { placeOf } from '../core/place.js';
import { randomId } from '../core/ids.js';
import { assertAllowed } from '../model/table.js';
import { parkStatus } from '../model/park.js';
import { protectedPoints, type TaskView } from '../model/fold.js';
import { resolveAgent } from '../agents/adapters/registry.js';
import { clearActive, markActive } from '../store/markers.js';
import { assertBranchKept } from '../workspace/branch/index.js';
import { dirtyFiles, ensureWorktree, headOf, worktreePath } from '../workspace/worktree.js';
import { sessionHostElsewhere } from '../agents/launch.js';
import { git } from '../core/git.js';
import { branchDiff, branchViolations } from '../workspace/review.js';
import { withLock } from '../core/lock.js';
import { allowedTaskArg } from './resolve.js';
import type { App } from './app.js';
import { env } from '../core/env.js';
import { nowIso } from '../core/clock.js';
import { taskBranch } from '../core/names.js';
import { landingBranch } from '../model/landing.js';

export interface Paired {
  task: TaskView;
  command: string[];
  exit_code: number | null;
  commits: number;
  dirty: string[];
}

/**
 * An interactive session in the task's worktree: the agent's configured interactive
 * command (resuming its session where it can), or $SHELL. The active marker is the
 * pairing lock; if this process dies, reconcile's stale-pairing sweep ends the processes the
 * session started and parks the task.
 */
export async function pairTask(app: App, idArg: string): Promise<Paired> {
  const { id, view } = await allowedTaskArg(app, idArg, 'pair');
  const config = await app.config();
  const path = worktreePath(app.repo, id, config.worktree_dir);
  const command = interactiveCommand(app, view, config);
  const run = randomId();
  try {
    // The worktree and the move into pairing under the task's lock, like a turn launch.
    await withLock(app.repo.lazyDir, id, async () => {
      await assertBranchKept(app.repo, view, 'pair');
      await ensureWorktree(app.repo, { path, branch: taskBranch(id), base: landingBranch(view) });
      await app.store.mutateUnlocked(id, 'pair', (d) => {
        assertAllowed('pair', d.view);
        d.transition('pairing', 'pair', `pairing: ${command.join(' ')}`);
        const sid = ownSession();
        markActive(app.repo.lazyDir, {
          task: id,
          run,
          kind: 'pair',
          since: nowIso(),
          owner: selfIdentity(),
          ...(sid !== null ? { pair_sid: sid } : {}),
        });
      });
    });
    const before = await headOf(path);
    const exit = await new Promise<number | null>((res) => {
      const child = spawn(command[0]!, command.slice(1), {
        cwd: path,
        stdio: 'inherit',
        // Not detached: an interactive command needs the terminal. LAZY_PAIR_RUN lets the stale-pairing
        // sweep find what it started (lib/agents/supervisor/kill.ts endPairing) if this process dies.
        // PWD too: some CLIs (opencode) resolve paths against it rather than their working directory.
        env: { ...env(), PWD: path, LAZY_TASK_ID: id, LAZY_PAIR_RUN: run },
      });
      child.on('error', () => res(127));
      child.on('exit', (code) => res(code));
    });
    const after = await headOf(path);
    const commits =
      Number((await git(['rev-list', '--count', `${before}..${after}`], { cwd: path })).stdout.trim()) || 0;
    const dirty = await dirtyFiles(path);
    // The branch moved in front of the person pairing: that is its review, and its violations.
    const upstream = landingBranch(view);
    // Best effort: a git failure here must not strand the task in pairing (accept checks both again).
    const review = await branchDiff(path, upstream, after).catch(() => null);
    const found = await branchViolations(
      path,
      upstream,
      after,
      config.protected ?? [],
      protectedPoints((await app.store.read(id)).docs),
    ).catch(() => []);
    const left = dirty.length ? `, ${dirty.length} uncommitted file(s) left: ${dirty.slice(0, 10).join(', ')}` : '';
    const { view: task } = await app.store.mutate(id, 'pair-end', (d) => {
      if (d.status !== 'pairing') return;
      d.turn({
        role: 'human',
        kind: 'pair',
        content: `Pairing session ended (exit ${exit ?? 'signal'}): ${commits} commit(s) made${left}.`,
        ...(review ? { details: { review: { ...review, auto_commit: null } } } : {}),
      });
      for (const f of found) d.violation({ file: f.file, run, commit: f.commit, base: f.base });
      d.transition(parkStatus(d.preview()), 'pair_end', 'pairing ended');
    });
    return { task, command, exit_code: exit, commits, dirty };
  } finally {
    clearActive(app.repo.lazyDir, id, run);
  }
}

function interactiveCommand(app: App, view: TaskView, config: Awaited<ReturnType<App['config']>>): string[] {
  const name = view.session?.agent ?? view.agent ?? config.agent;
  if (name) {
    try {
      const spec = resolveAgent(config, name);
      // An agent session that ran on another host cannot be resumed here.
      const sid = sessionHostElsewhere(view, placeOf(app.repo)) ? null : view.agent_session_id;
      if (spec.interactive) return withSession(spec.interactive, sid);
    } catch {
      /* fall back to a shell */
    }
  }
  return [env().SHELL || '/bin/sh'];
}

/** Fills {session} with the agent's session id; without one, drops it and the flag before it. */
export function withSession(argv: string[], session: string | null): string[] {
  if (session) return argv.map((a) => a.replaceAll('{session}', session));
  const out: string[] = [];
  for (const a of argv) {
    if (a.includes('{session}')) {
      if (out.at(-1)?.startsWith('-')) out.pop();
      continue;
    }
    out.push(a);
  }
  return out;
}
