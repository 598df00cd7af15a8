import { LazyError } from '../../core/errors.js';
import { thisHost } from '../../core/proc.js';
import type { Terminated } from '../../agents/supervisor/kill.js';
import type { TaskView } from '../../model/fold.js';
import { waitFor } from '../wait.js';
import type { App } from '../app.js';
import { carriedDetails, setAsideNote } from '../../model/details.js';
import type { Status } from '../../model/status.js';
import { leftBefore, roundLabel, roundsOf } from '../../model/rounds.js';
import { endRoundSession } from '../../agents/rounds.js';

// Stopping an ask (or a follow-up or a repair): the agent is ended like any other, but the task is not interrupted.
// The ask's supervisor records its end, which sets aside what the ask left in the worktree
// and returns the task to its status before the ask (reconcile does both for a dead
// supervisor). Waiting for that here means that once stop returns, the worktree is the
// one the review saw, and no later turn can start while the ask's leftovers are still there.

const RECORD_TIMEOUT_S = 15;

export async function stopAsk(
  app: App,
  id: string,
  o: { from: 'blocked' | 'conflict'; run: string | null; end: (() => Promise<Terminated>) | null },
): Promise<Terminated & { task: TaskView; ask: { set_aside: string | null } }> {
  // Nothing recorded the ask's end (no run here, or a supervisor that does not answer):
  // the task returns by the table's stop edge; whoever records the run later changes nothing.
  const { task, term } = await stopNeutral(app, id, o, 'stop', `ask stopped by the user: back to ${o.from}`);
  const answer = task.turns.find((t) => t.run === o.run && t.role === 'agent');
  const note = setAsideNote(answer);
  return { task, ...term, ask: { set_aside: note } };
}

/** Stopping a follow-up or a repair: like an ask's, its end returns the task (round_end), never interrupts it. */
export async function stopRound(
  app: App,
  id: string,
  o: { from: Status; run: string | null; end: (() => Promise<Terminated>) | null },
): Promise<Terminated & { task: TaskView; round: string }> {
  const before = await app.store.view(id);
  const r = roundsOf(before).find((x) => x.run === o.run);
  const label = r ? roundLabel(r.kind, r.n) : 'round';
  const { task, term } = await stopNeutral(app, id, o, 'round_end', `${label} stopped by the user: back to ${o.from}`);
  return { task, ...term, round: label };
}

/** Ends the run and waits for its end to be recorded; when nothing records it, returns the task by `trigger`. */
async function stopNeutral(
  app: App,
  id: string,
  o: { from: Status; run: string | null; end: (() => Promise<Terminated>) | null },
  trigger: 'stop' | 'round_end',
  reason: string,
): Promise<{ task: TaskView; term: Terminated }> {
  const term: Terminated = o.end ? await o.end() : { signal: 'none', waited_ms: 0 };
  const ended = (v: { status: string; current_run: string | null }) =>
    v.status !== 'working' || v.current_run !== o.run;
  let task = o.end
    ? await waitFor(app, id, { timeoutS: RECORD_TIMEOUT_S, until: ended }).catch((e) => {
        if (e instanceof LazyError && e.code === 'timeout') return null;
        throw e;
      })
    : null;
  task ??= (
    await app.store.mutate(id, 'stop', (d) => {
      if (d.status !== 'working' || d.view.current_run !== o.run) return;
      // A round returns with the details of the move that had left the task there, as its own end does.
      const before = trigger === 'round_end' && o.run ? carriedDetails(leftBefore(d.view.changelog, o.run)) : null;
      if (trigger === 'round_end') endRoundSession(d, o.from); // as the round's own end does
      d.transition(o.from, trigger, reason, {
        ...(o.run ? { run: o.run } : {}),
        host: thisHost(),
        details: before ?? { user_stopped: true },
      });
    })
  ).view;
  return { task, term };
}
