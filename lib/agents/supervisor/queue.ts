import type { Repo } from '../../core/repo.js';
import type { Launcher } from '../../core/launcher.js';
import { EXIT, LazyError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';
import type { Config } from '../../store/config/index.js';
import { lastChange, type TaskView, type TurnView } from '../../model/fold.js';
import { launchTurn, type Launched } from '../launch.js';
import { planQueued } from '../turns.js';

// Feedback given while the agent works is queued: `lazy unblock` on a working task
// records it as pending, and the end of the running turn starts the next turn with it.
// Invariant: queued feedback is pending feedback like any other, so a launch that fails
// leaves it pending and the next unblock, resume or auto-resume delivers it.

/** Pending human feedback recorded after the latest move into working: no turn has been launched for it yet. */
export function queuedFeedback(v: Pick<TaskView, 'turns' | 'changelog'>): TurnView[] {
  const launched = lastChange(v, 'working');
  const since = launched?.clock ?? 0;
  return v.turns.filter((t) => t.feedback === 'pending' && t.kind === 'feedback' && t.clock > since);
}

export interface QueueDeps {
  repo: Repo;
  store: Store;
  launcher: Launcher;
  config: Config;
}

/**
 * After a turn parked the task: starts the next turn when feedback was queued during it.
 * Only from blocked: conflict needs protected-file decisions first and a stop or a crash
 * leaves the task interrupted (resume and auto-resume deliver the queued feedback).
 */
export async function startQueued(deps: QueueDeps, id: string): Promise<Launched | null> {
  const v = await deps.store.view(id);
  if (v.status !== 'blocked' || queuedFeedback(v).length === 0) return null;
  return launchTurn(deps.repo, deps.store, deps.launcher, {
    id,
    op: 'unblock',
    actor: 'system',
    config: deps.config,
    plan: (d, r) => planQueued(d, r, queuedFeedback(d.view).length),
  });
}

/** startQueued for the end of a turn: a failure is recorded on the task, never thrown; the feedback stays pending. */
export async function startQueuedOrNote(
  deps: QueueDeps,
  id: string,
  note: (m: string) => void,
): Promise<Launched | null> {
  try {
    const l = await startQueued(deps, id);
    if (l) note(`queued feedback started the next turn (run ${l.run.id})`);
    return l;
  } catch (e) {
    // Refused by the table: someone else started the next turn first. Nothing is lost.
    if (e instanceof LazyError && e.exitCode === EXIT.notAllowed) return null;
    const reason = (e as Error).message;
    note(`queued feedback could not start the next turn: ${reason}`);
    await deps.store
      .mutate(
        id,
        'queued-feedback',
        (d) => {
          if (queuedFeedback(d.view).length === 0) return;
          d.turn({
            role: 'system',
            kind: 'error',
            actor: 'system',
            content:
              `[system] The feedback queued during the last turn could not start the next turn: ${reason}. ` +
              `It stays pending: lazy unblock or lazy resume delivers it.`,
          });
        },
        { actor: 'system' },
      )
      .catch(() => undefined);
    return null;
  }
}
