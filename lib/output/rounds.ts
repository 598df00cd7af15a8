import type { TurnStarted } from '../ops/turn.js';
import type { TaskView } from '../model/fold.js';
import { roundCommits, roundLabel, roundsOf, type Round } from '../model/rounds.js';
import { landingBranch } from '../model/landing.js';
import { taskBranch } from '../core/names.js';
import { shortTime } from './format.js';
import { turnAgentOf } from '../model/details.js';

// Text for lazy follow-up and lazy repair, and show's account of a task's rounds.

/** A round launched (an agent runs it), or already run (follow-up --command). */
export function renderRound(r: TurnStarted): string {
  const round = roundsOf(r.task).find((x) => x.run === r.run?.id);
  if (!round || !r.run) return `${r.task.id}: ${r.task.status}`;
  const label = roundLabel(round.kind, round.n);
  if (r.task.status === 'working')
    return (
      `${r.task.id}: working — ${label}: ${r.run.agent.name} turn launched (run ${r.run.id}); ` +
      `back to ${round.from} when it ends; follow with lazy wait ${r.task.id}`
    );
  return [`${r.task.id}: ${label} ran → back to ${r.task.status}`, ...roundLines(r.task, round)].join('\n');
}

/** What a round did: its result's first line and the commits it left on the task branch only. */
function roundLines(v: TaskView, r: Round): string[] {
  const out: string[] = [];
  const first = r.result?.content.split('\n')[0];
  if (first) out.push(`  ${first}`);
  const c = roundCommits(r);
  if (r.kind === 'follow_up' && c?.commits)
    out.push(
      `  ${c.commits} commit(s) on ${taskBranch(v.id)} are not on ${landingBranch(v)} ` +
        `(head ${c.head.slice(0, 10)}): lazy reopen ${v.id} to land them`,
    );
  return out;
}

/** show: each follow-up and repair, oldest first, with what it left. */
export function showRounds(lines: string[], v: TaskView): void {
  const rounds = roundsOf(v);
  if (!rounds.length) return;
  lines.push('', `Follow-ups and repairs (${rounds.length})`);
  for (const r of rounds) {
    const end = r.ended ? `back to ${r.ended.status}` : 'running';
    const by = turnAgentOf(r.result);
    lines.push(
      `  ${roundLabel(r.kind, r.n)}  ${shortTime(r.started.timestamp)}  from ${r.from}, ${end}` +
        (by ? ` (${by})` : ''),
    );
    lines.push(...roundLines(v, r).map((l) => `  ${l}`));
  }
}
