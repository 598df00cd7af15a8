import { lastChange, type TaskView, type TurnView, type ChangeView } from '../model/fold.js';
import { showRounds } from './rounds.js';
import type { ListedTask, ListItem } from '../ops/list.js';
import type { ShownTask } from '../ops/show.js';
import type { Requirement } from '../model/situation.js';
import type { Waiting } from '../agents/supervisor/waits.js';
import { substateLabel, type Substate } from '../agents/substate.js';
import { renderReview, renderReviewGap, renderSubmission } from './review.js';
import { renderLog } from './stream.js';
import { ADAPTERS } from '../agents/adapters/registry.js';
import type { Closed } from '../ops/close.js';
import { ago, fitted, indent, pad, shortTime, table } from './format.js';
import { paintAttention, paintStatus, style } from './color.js';
import { Escaped, type Rendered } from './emit.js';
import { pipedLine } from './piped-line.js';
import { sanitizeLine } from '../core/sanitize.js';
import { queueLabel, type Schedule } from '../model/schedule.js';
import type { UsageTotals } from '../model/usage.js';
import { now } from '../core/clock.js';
import { remoteBranch, taskBranch } from '../core/names.js';
import { setAsideNote } from '../model/details.js';

// Text renderings of tasks. JSON output never passes through here.

/** A string item is a run of rows' piped lines, as the listing index stored them (pipedLine: escaped). */
export function renderList(rows: ListItem[], filtered = false): Rendered {
  // A filter that hid everything is not an empty store: no create hint then.
  if (rows.length === 0)
    return filtered
      ? 'no tasks match these filters (--all includes finished ones)'
      : 'no tasks (lazy create "<goal>" adds one; --all includes finished ones)';
  const at = now();
  // Off a terminal: whole cells, tab-separated, the time as stored (ISO), as gh prints for scripts. Every line is
  // pipedLine's (escaped), so emit need not scan 9 MB again.
  if (!style().tty) {
    const painted = (line: string) => {
      const [id, status, ...rest] = line.split('\t');
      return [id, paintStatus(status!), ...rest].join('\t');
    };
    const color = style().color;
    const lines = rows.slice();
    for (let i = 0; i < lines.length; i++) {
      const r = lines[i]!;
      if (typeof r !== 'string') lines[i] = pipedLine(r, statusCell(r, at));
      else if (color) lines[i] = r.split('\n').map(painted).join('\n');
    }
    return new Escaped(lines.join('\n'));
  }
  const cells = (id: string, status: string, updated: string, tags: string, goal: string) => [
    id,
    status,
    ago(updated, at),
    fitted(tags, 24),
    goal,
  ];
  return table(
    ['ID', 'STATUS', 'UPDATED', 'TAGS', 'GOAL'],
    rows.flatMap((r) => {
      if (typeof r !== 'string') return [cells(r.id, statusCell(r, at), r.updated_at, r.tags.join(','), r.goal)];
      return r.split('\n').map((line) => {
        const [id = '', status = '', updated = '', tags = '', goal = ''] = line.split('\t');
        return cells(id, paintStatus(status), updated, tags, goal);
      });
    }),
  );
}

/** The status with what qualifies it: the turn's substate, its usage-limit wait here, the task's place in the queue. */
export function statusCell(
  r: { status: string; schedule: Schedule; waiting?: Waiting; substate?: Substate | null },
  now: number,
): string {
  const notes = [
    r.substate ? substateLabel(r.substate) : null,
    r.waiting ? waitNote(r.waiting) : null,
    queueLabel(r.schedule, now),
  ].filter(Boolean);
  const status = paintStatus(r.status);
  return notes.length ? `${status} (${notes.join('; ')})` : status;
}

/** A turn waiting for the agent's usage window: until when, and whether the agent named that time. */
const waitNote = (w: Waiting) => `usage limit: ${w.reset_named ? 'resets' : 'rechecks'} ${shortTime(w.until)}`;

const who = (actor: string, person: { name: string } | null) =>
  person && actor !== 'system' && actor !== 'agent' ? `${person.name} (${actor})` : actor;

function turnLine(t: TurnView): string {
  const mark =
    t.feedback === 'pending' ? ' [feedback pending]' : t.feedback === 'consumed' ? ' [feedback delivered]' : '';
  const head = `#${t.sequence} ${t.role}/${t.kind} · ${who(t.actor, t.person)} · ${shortTime(t.timestamp)}${mark}`;
  const aside = setAsideNote(t);
  const asideLine = typeof aside === 'string' ? `\n${indent(`[${aside}]`, 4)}` : '';
  return `${head}\n${indent(t.content.trimEnd() || '(empty)', 4)}${asideLine}`;
}

function changeLine(c: ChangeView): string {
  const aside = c.set_aside ? '  [set aside: concurrent change]' : '';
  const move = `${(c.from ?? '∅').padEnd(11)} → ${c.status.padEnd(11)} ${c.trigger.padEnd(14)}`;
  const reason = c.reason ? ` — ${fitted(c.reason, 80)}` : '';
  return `${shortTime(c.timestamp)}  ${move} ${who(c.actor, c.person)}${reason}${aside}`;
}

/** What a condition asks of the command, as a person types it. */
const NEEDS: Record<Requirement, string> = {
  decisions: 'with a decision on each protected file',
  force: '--force: it runs in another clone',
};

const actionsLine = (v: ShownTask) =>
  v.available_actions
    .map((a) => {
      const c = v.action_conditions.find((x) => x.action === a);
      return c ? `${a} (${NEEDS[c.requires]})` : a;
    })
    .join(', ') || 'none';

export function renderShow(v: ShownTask): string {
  const lines: string[] = [];
  showHead(lines, v);
  lines.push('');
  showFacts(lines, v);
  showInterruption(lines, v);
  showConcurrent(lines, v);
  showRounds(lines, v);
  showHistory(lines, v);
  return lines.join('\n');
}

/** The task, where it stands and what can be done with it; its review package when one waits on review. */
function showHead(lines: string[], v: ShownTask): void {
  lines.push(`${v.id}  ${v.goal}`);
  // blocked and conflict are their own category: `blocked (blocked)` says nothing twice.
  const category = v.category && v.category !== v.status ? ` (${v.category})` : '';
  const attention = v.attention ? ` — ${paintAttention(v.attention.kind)}: ${v.attention.reason}` : '';
  const substate = v.substate ? ` (${substateLabel(v.substate)})` : '';
  lines.push(`status:    ${paintStatus(v.status)}${substate}${category}${attention}`);
  lines.push(`actions:   ${actionsLine(v)}`);
  const queue = queueLabel(v.schedule, now());
  if (queue) lines.push(`queue:     ${queue}`);
  if (v.waiting)
    lines.push(
      `waiting:   for the agent's usage limit to reset: retries at ${shortTime(v.waiting.until)}` +
        `${v.waiting.reset_named ? '' : ' (no reset time named: a recheck)'} — ${v.waiting.reason}`,
    );
  if (v.submission) lines.push(renderSubmission(v.submission));
  if (v.review_gap) lines.push(renderReviewGap(v.id, v.review_gap));
  // A task waiting on review (or on a forge's) shows its review package first.
  const review =
    v.attention?.kind === 'review' || v.status === 'conflict' || v.status === 'submitted' ? renderReview(v) : '';
  if (review) lines.push('', review);
}

/** Where the task comes from and what it has cost so far. */
function showFacts(lines: string[], v: ShownTask): void {
  if (v.tags.length) lines.push(`tags:      ${v.tags.join(', ')}`);
  if (v.parent) lines.push(`parent:    ${v.parent}`);
  if (v.base) lines.push(`base:      ${v.base}`);
  if (v.model) lines.push(`model:     ${v.model}`);
  lines.push(`created:   ${shortTime(v.created_at)} by ${who(v.created_by.actor, v.created_by)}`);
  if (v.session) {
    lines.push(
      `session:   ${v.session.agent} on ${v.session.branch} (from ${v.session.base})` +
        (v.agent_session_id ? `, agent session ${v.agent_session_id}` : ''),
    );
    if (v.worktree) lines.push(`worktree:  ${v.worktree}`);
  }
  const b = v.branch_sync;
  if (b.state === 'diverged' || b.state === 'behind')
    lines.push(
      `branch:    ${taskBranch(v.id)} ${b.state === 'diverged' ? 'has diverged from' : 'is behind'} ${b.remote}'s ` +
        `(${b.ahead} commit(s) only here, ${b.behind} only there)` +
        (b.state === 'diverged'
          ? `: merge ${remoteBranch(b.remote!, taskBranch(v.id))} into it by hand, then lazy push`
          : ': lazy pull'),
    );
  const usage = usageLine(v.usage);
  if (usage) lines.push(`usage:     ${usage}`);
  if (v.revisions) lines.push(`revisions: ${v.revisions}`);
  lines.push(`crashes:   ${v.consecutive_interruptions} in a row`);
}

/** Why an interrupted task stopped, with the end of its output. */
function showInterruption(lines: string[], v: ShownTask): void {
  if (v.status === 'interrupted' && v.interrupt) {
    const i = v.interrupt as Record<string, unknown>;
    lines.push(
      '',
      `Interrupted ${shortTime(String(i.at))}: ${String(i.reason)}` +
        (i.exit_code !== undefined && i.exit_code !== null ? ` (exit ${String(i.exit_code)})` : '') +
        (i.signal ? ` (${String(i.signal)})` : ''),
    );
    const logs = (i.logs ?? []) as string[];
    if (logs.length) lines.push('  last output:', indent(logs.slice(-15).join('\n'), 4));
  }
}

/** What happened elsewhere meanwhile: status changes a merge set aside, and commits pushed to its branch. */
function showConcurrent(lines: string[], v: ShownTask): void {
  if (v.concurrent_changes.length) {
    lines.push(
      '',
      `concurrent change: ${v.concurrent_changes.length} status change(s) made on another clone ` +
        `were set aside by the merge:`,
    );
    for (const c of v.concurrent_changes)
      lines.push(
        `  ${c.from ?? '∅'} → ${c.status} by ${who(c.actor, c.person)} at ${shortTime(c.timestamp)}` +
          (c.host ? ` on ${c.host}` : ''),
      );
  }
  if (v.branch_news?.count) {
    const n = v.branch_news;
    lines.push('', `concurrent changes on ${n.ref}: ${n.count} new commit(s) pushed there (lazy pull brings them)`);
    for (const c of n.commits)
      lines.push(`  ${c.sha.slice(0, 10)} ${sanitizeLine(c.subject)} (${sanitizeLine(c.author)})`);
  }
}

/** The prompt, the acceptance criteria, the turns, the changelog, and the log of the turn running or interrupted. */
function showHistory(lines: string[], v: ShownTask): void {
  if (v.prompt) lines.push('', 'Prompt', indent(v.prompt.trimEnd()));
  if (v.acceptance.length) lines.push('', 'Acceptance criteria', ...v.acceptance.map((a) => `  - ${a}`));
  lines.push('', `Turns (${v.turns.length})`);
  lines.push(v.turns.length ? indent(v.turns.map(turnLine).join('\n')) : '  none yet');
  lines.push('', 'Changelog', indent(v.changelog.map(changeLine).join('\n')));
  if (v.run && v.run.log.length && (v.status === 'working' || v.status === 'interrupted')) {
    const beat = v.run.heartbeat_age_s !== null ? `, heartbeat ${v.run.heartbeat_age_s}s ago` : '';
    const adapter = v.run.adapter ? ADAPTERS[v.run.adapter] : undefined;
    const log = renderLog(adapter, v.run.log.join('\n')).trimEnd();
    const title = v.status === 'working' ? 'Current turn log' : 'Interrupted turn log';
    lines.push('', `${title} (run ${v.run.id}${beat})`, indent(log || '(nothing readable yet)'));
  }
}

/** "1200 in / 300 out tokens, cache 5000 read / 800 written, $0.0123": parts the agents reported, none when nothing ran. */
function usageLine(u: UsageTotals): string | null {
  const cache = u.cache_read_input_tokens || u.cache_creation_input_tokens;
  const parts = [
    `${u.input_tokens} in / ${u.output_tokens} out tokens`,
    cache ? `cache ${u.cache_read_input_tokens} read / ${u.cache_creation_input_tokens} written` : null,
    u.cost_usd !== null ? `$${u.cost_usd.toFixed(4)}` : null,
  ];
  return u.input_tokens || u.output_tokens || cache || u.cost_usd !== null ? parts.filter(Boolean).join(', ') : null;
}

export function renderTransition(v: TaskView): string {
  const last = lastChange(v);
  return `${v.id}: ${last?.from ?? '∅'} → ${paintStatus(v.status)}`;
}

/** queue, unqueue, pause, unpause: one line per task, with where it now stands in the queue. */
export function renderScheduled(action: string, tasks: TaskView[]): string {
  const at = now();
  return tasks.map((v) => `${v.id} ${action}d: ${statusCell(v, at)}`).join('\n');
}

export function renderClosed(r: Closed): string {
  const lines = [renderTransition(r.task)];
  if (r.saved_commit)
    lines.push(`  uncommitted changes were committed on the task branch as ${r.saved_commit.slice(0, 10)}`);
  if (r.worktree_removed) lines.push('  worktree removed');
  if (r.branch?.deleted) lines.push(`  branch ${r.branch.name} deleted`);
  else if (r.branch)
    lines.push(
      `  branch ${r.branch.name} kept: ${r.branch.unmerged_commits} commit(s) are merged nowhere else ` +
        `(lazy close --delete-branch, or git branch -D ${r.branch.name})`,
    );
  return lines.join('\n');
}

/** list's text: the tree (its rows come whole, from listTasks), or the table. */
export const renderListing = (rows: ListItem[], tree: boolean, filtered: boolean): Rendered =>
  tree ? renderTree(rows as ListedTask[], filtered) : renderList(rows, filtered);

/** list --tree: children under their parents, in creation order. */
export function renderTree(rows: ListedTask[], filtered = false): Rendered {
  if (rows.length === 0) return renderList(rows, filtered);
  const at = now();
  const ids = new Set(rows.map((r) => r.id));
  const kids = new Map<string | null, ListedTask[]>();
  for (const r of rows) {
    const p = r.parent && ids.has(r.parent) ? r.parent : null;
    kids.set(p, [...(kids.get(p) ?? []), r]);
  }
  const out: string[] = [];
  const walk = (parent: string | null, prefix: string) => {
    const list = kids.get(parent) ?? [];
    list.forEach((r, i) => {
      const last = i === list.length - 1;
      const glyph = parent ? (last ? '└─ ' : '├─ ') : '';
      out.push(`${prefix}${glyph}${r.id}  ${pad(statusCell(r, at), 11)} ${fitted(r.goal, 70)}`);
      walk(r.id, parent ? prefix + (last ? '   ' : '│  ') : prefix);
    });
  };
  walk(null, '');
  return out.join('\n');
}
