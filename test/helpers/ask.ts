import { gitSync } from './env.js';
import type { AgentBox } from './agent.js';

// A task parked for a person, to ask about: what the person sees of it must not change.

/** What a person sees of a task waiting on them: none of it may change because of an ask. */
export const attentionFacts = (v: any) => ({
  status: v.status,
  attention: v.attention,
  available_actions: v.available_actions,
  pending_feedback: v.pending_feedback,
});

/** Runs a work turn to its end (the scenarios given), and returns the parked task, its worktree and head. */
export async function parked(box: AgentBox, scenarios: string, goal = 'ask me things') {
  box.scenario(scenarios);
  const id = await box.l.create(goal, '--accept', 'done');
  await box.l('start', id);
  const w = await box.l.json('wait', id, '--timeout', '60');
  if (w.run.code !== 0) throw new Error(`the work turn did not park: ${w.run.stdout}`);
  const before = (await box.l.json('show', id)).value;
  return {
    id,
    before,
    wt: before.worktree as string,
    head: gitSync(before.worktree, box.sb.env, ['rev-parse', 'HEAD']).trim(),
  };
}

/** git status of a worktree, untracked files listed one by one. */
export const worktreeStatus = (box: AgentBox, wt: string) =>
  gitSync(wt, box.sb.env, ['status', '--porcelain', '--untracked-files=all']);
