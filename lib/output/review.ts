import type { AcceptReport } from '../ops/accept/index.js';
import type { Submitted } from '../ops/submit.js';
import type { Submission } from '../model/submission.js';
import type { TaskView, TurnView } from '../model/fold.js';
import { isReviewTurn, reviewerCommands } from '../model/review.js';
import { indent, shortTime } from './format.js';
import { keepColors, paintResult } from './color.js';
import type { Diff } from '../ops/diff.js';
import type { ShownTask } from '../ops/show.js';
import { taskBranch } from '../core/names.js';
import { reviewOf, commandsOf, risksOf } from '../model/details.js';

// The review package: what a reviewer needs to judge a completed turn.

export function latestReview(v: TaskView): TurnView | undefined {
  const t = [...v.turns].reverse().find(isReviewTurn);
  // A reopen after it leaves nothing to review until the next turn: the reopen's reason is the attention.
  const reopened = v.changelog.some((c) => c.trigger === 'reopen' && !c.set_aside && t && c.clock > t.clock);
  return reopened ? undefined : t;
}

export function renderReview(v: TaskView): string {
  const t = latestReview(v);
  if (!t) return '';
  const r = reviewOf(t)!; // latestReview finds a turn by isReviewTurn: its review is there
  const lines = [`Review (turn #${t.sequence}, revision ${v.revisions})`, indent(t.content.trimEnd())];
  lines.push(
    `  branch ${v.session?.branch ?? taskBranch(v.id)} at ${r.head.slice(0, 10)}: ` +
      `${r.commits} commit(s) over ${r.base_commit.slice(0, 10)}`,
  );
  if (r.changed_files.length) lines.push('  changed files:', ...r.changed_files.map((f) => `    ${f}`));
  if (r.diffstat) lines.push(indent(r.diffstat, 2));
  const commands = commandsOf(t);
  if (commands.length)
    lines.push(
      '  commands run:',
      ...commands.map(
        (c) =>
          `    ${c.exit_code === 0 ? `${paintResult(true, 'ok')}  ` : paintResult(false, `FAIL(${c.exit_code})`)} ${c.command}`,
      ),
    );
  lines.push(...peopleCommands(v));
  const risks = risksOf(t);
  lines.push(
    risks.length ? '  risks and unfinished work:' : '  risks: none reported',
    ...risks.map((x) => `    - ${x}`),
  );
  if (v.pending_violations.length)
    lines.push(
      '  protected files awaiting a decision:',
      ...v.pending_violations.map((p) => `    ${p.file} (lazy unblock/accept --approve-file or --revert-file)`),
    );
  return lines.join('\n');
}

/** The commands people ran on the work under review (lazy run), apart from the agent's: who, when, how it ended. */
function peopleCommands(v: TaskView): string[] {
  const runs = reviewerCommands(v);
  if (!runs.length) return [];
  return [
    '  commands run by people:',
    ...runs.map((c) => {
      const mark =
        c.exit_code === 0 ? `${paintResult(true, 'ok')}  ` : paintResult(false, `FAIL(${c.exit_code ?? c.signal})`);
      const who = c.person ? `${c.person} (${c.actor})` : c.actor;
      return `    ${mark} ${c.command}  — ${who}, ${shortTime(c.at)}, ${(c.duration_ms / 1000).toFixed(1)} s (turn #${c.sequence})`;
    }),
  ];
}

export function renderAccepted(r: AcceptReport): string {
  if (r.already_accepted)
    return `${r.task.id}: already accepted${r.commit ? ` (merged into ${r.target} as ${r.commit.slice(0, 10)})` : ''}`;
  const lines = [
    `${r.task.id}: complete — ` +
      (r.commit ? `squash-merged into ${r.target} as ${r.commit.slice(0, 10)}` : `nothing to merge into ${r.target}`),
  ];
  if (r.stash?.restored) lines.push(`  your uncommitted changes in ${r.checkout} were stashed and restored`);
  for (const w of r.warnings) lines.push(`  warning: ${w}`);
  return lines.join('\n');
}

/** show's line for a branch accept would refuse as it stands (ShownTask.review_gap, accept's own judgement). */
export function renderReviewGap(id: string, g: NonNullable<ShownTask['review_gap']>): string {
  const branch = g.branch;
  if (g.kind === 'behind')
    return (
      `review:    ${branch} here is behind the head its review recorded ` +
      `(${g.reviewed_head?.slice(0, 10)}, made on ${g.host}); accept refuses it until lazy pull fetches that head`
    );
  const from = g.pulled_from ? ` (pulled from ${g.pulled_from})` : '';
  const what = !g.reviewed_head
    ? `${branch} has ${g.count} commit(s) no review covers${from}`
    : g.count
      ? `${branch} has ${g.count} commit(s) after the last review${from}`
      : `${branch} moved since its review (${g.reviewed_head.slice(0, 10)} → ${g.branch_head.slice(0, 10)})${from}`;
  const agent = g.agent_accepted.length ? `, subtask ${g.agent_accepted.join(', ')} accepted by an agent` : '';
  const them = g.count ? 'them' : 'it';
  return (
    `review:    ${what}${agent}; accept refuses ${them} until a review covers ${them} ` +
    `(lazy diff ${id} shows ${them}, lazy unblock ${id} -m "…" reviews ${them})`
  );
}

/** show's line for a task handed to a forge: the pull request, or why the PR command failed. */
export function renderSubmission(s: Submission): string {
  const where = `${s.branch ?? '?'} on ${s.remote ?? '?'}${s.head ? ` at ${s.head.slice(0, 10)}` : ''}`;
  if (!s.ok) return `PR:        the PR command failed (${s.error}); ${where} was pushed — lazy submit retries`;
  return s.url ? `PR:        ${s.url} (${where})` : `submitted: ${where}; no pull request URL recorded`;
}

export function renderSubmitted(r: Submitted): string {
  const lines = [
    `${r.task.id}: ${r.retried ? 'submitted again' : 'blocked → submitted'} — ` +
      `${r.branch} at ${r.head.slice(0, 10)} pushed to ${r.remote} (target ${r.target})`,
  ];
  if (!r.pr && r.url) lines.push(`  the pull request ${r.url} stands: the PR command did not run again`);
  else if (!r.pr) lines.push('  no forge.pr_command configured: open the pull request on your forge');
  else if (r.pr.error) {
    lines.push(`  PR command failed: ${r.pr.error} (the task stays submitted; lazy submit ${r.task.id} retries)`);
    const out = `${r.pr.stdout}${r.pr.stderr}`.trimEnd().split('\n').slice(-10).join('\n');
    if (out) lines.push(`  its output (${r.pr.command.join(' ')}):`, indent(out, 4));
  } else if (r.url && r.pr.exit_code !== 0) lines.push(`  the pull request exists already: ${r.url}`);
  else lines.push(r.url ? `  opened ${r.url}` : '  the PR command succeeded but printed no URL');
  if (r.push_error) lines.push(`  warning: ${r.push_error.message}`);
  return lines.join('\n');
}

/** show --markdown: the pull request body, as submit hands it to forge.pr_command. */
export const renderMarkdown = (r: { markdown: string }) => r.markdown;

/** lazy diff: git's text, with the colours git gave it on a terminal. */
export const renderDiff = (d: Diff) => keepColors(d.text) || `(no changes between ${d.base} and ${d.branch})`;
