import type { Started } from '../ops/start.js';
import type { TurnStarted } from '../ops/turn.js';
import type { Stopped } from '../ops/stop/index.js';
import type { Asked } from '../ops/ask.js';
import type { Paired } from '../ops/pair.js';
import type { TaskView } from '../model/fold.js';
import { setAsideNote } from '../model/details.js';

// Text for the commands that start, stop and wait on turns.

export function renderStarted(r: Started | TurnStarted): string {
  if ('queued' in r && r.queued) {
    const behind = r.queued.behind_run ? ` (run ${r.queued.behind_run})` : '';
    return (
      `${r.task.id}: feedback queued (turn #${r.queued.sequence}) — the agent is working${behind}; ` +
      `your feedback starts its next turn when this one ends`
    );
  }
  const s = 'upstream_skipped' in r ? r.upstream_skipped : undefined;
  const skipped = s
    ? `\n  note: ${s.branch} was not merged into the task branch first: ${s.reason} ` +
      `(${s.files.join(', ')}${s.more ? `, +${s.more} more` : ''}); the agent is told`
    : '';
  if (r.run)
    return (
      `${r.task.id}: working — ${r.run.agent.name} turn launched (run ${r.run.id}); ` +
      `follow with lazy show ${r.task.id} or lazy wait ${r.task.id}${skipped}`
    );
  return (
    `${r.task.id}: blocked — ${r.task.attention?.reason ?? 'needs a decision'}\n` +
    `  answer with: lazy answer ${r.task.id} -m "<observable completion condition>"`
  );
}

export function renderStopped(r: Stopped): string {
  const how =
    r.signal === 'none'
      ? 'no agent process was running'
      : r.signal === 'SIGTERM'
        ? `the agent exited after SIGTERM (${r.waited_ms} ms)`
        : `the agent ignored SIGTERM and was killed after ${r.waited_ms} ms`;
  const a = r.task.attention;
  if (r.ask)
    return [
      `${r.task.id}: ask stopped (${how}); back to ${r.task.status}${a ? ` — ${a.kind}: ${a.reason}` : ''}`,
      ...(r.ask.set_aside ? [`  ${r.ask.set_aside}`] : []),
    ].join('\n');
  const n = r.task.pending_feedback.length;
  const pending = n
    ? `\n  ${n} feedback message${n > 1 ? 's' : ''} not acted on yet (queued or interrupted) ` +
      `stay${n > 1 ? '' : 's'} pending: lazy resume delivers ${n > 1 ? 'them' : 'it'}`
    : '';
  if (r.broken) {
    const where = r.broken.remote
      ? r.broken.lease
        ? `; its lease ${r.broken.lease.slice(0, 12)} is deleted on ${r.broken.remote}`
        : `; ${r.broken.remote} held no lease for it`
      : '';
    return `${r.task.id}: interrupted (its claim broken by you${where}; the branch is kept)${pending}`;
  }
  return `${r.task.id}: interrupted (stopped by you; it will not auto-resume) — ${how}${pending}`;
}

export function renderWaited(v: TaskView): string {
  return `${v.id}: ${v.status}${v.attention ? ` — ${v.attention.kind}: ${v.attention.reason}` : ''}`;
}

export function renderAsked(r: Asked): string {
  const text = r.answer ? r.answer.content : `${r.task.id}: no answer was recorded (status ${r.task.status})`;
  const note = setAsideNote(r.answer);
  return typeof note === 'string' ? `${text}\n\nnote: ${note}` : text;
}

export function renderPaired(r: Paired): string {
  const dirty = r.dirty.length ? `, ${r.dirty.length} uncommitted file(s)` : '';
  return `${r.task.id}: pairing ended → ${r.task.status} (${r.commits} commit(s)${dirty})`;
}
