import { usageError, notAllowed } from '../core/errors.js';
import type { TaskView, PendingViolation } from '../model/fold.js';
import type { Draft } from '../store/draft.js';
import { assertRestorable, restoreFile } from '../workspace/restore.js';
import { worktreePath } from '../workspace/worktree.js';
import type { App } from './app.js';

// Leaving conflict takes an explicit approve or revert for every pending protected
// file. Neither unblock nor accept infers one, and a decision once made is sticky.

export interface DecisionFlags {
  approve?: string[];
  revert?: string[];
  approveAll?: boolean;
  revertAll?: boolean;
}

export interface Planned {
  file: string;
  decision: 'approve' | 'revert';
  commit?: string;
}

/** Checks the flags against the pending set; refuses (exit 4) while any file is undecided. */
export function planDecisions(v: TaskView, f: DecisionFlags, action: 'unblock' | 'accept'): Planned[] {
  if (f.approveAll && f.revertAll) throw usageError('--approve-all and --revert-all contradict each other');
  const pending = new Map(v.pending_violations.map((p) => [p.file, p]));
  const both = (f.approve ?? []).filter((p) => (f.revert ?? []).includes(p));
  if (both.length) throw usageError(`a file cannot be both approved and reverted: ${both.join(', ')}`);
  // Naming a file that is already decided (or never violated) is accepted and changes nothing.
  // A file named explicitly wins over --approve-all/--revert-all, whichever way it goes.
  const out: Planned[] = [];
  for (const [file] of pending) {
    const d = f.approve?.includes(file)
      ? 'approve'
      : f.revert?.includes(file)
        ? 'revert'
        : f.approveAll
          ? 'approve'
          : f.revertAll
            ? 'revert'
            : undefined;
    if (d) out.push({ file, decision: d });
  }
  const undecided = [...pending.keys()].filter((file) => !out.some((o) => o.file === file));
  if (undecided.length) {
    throw notAllowed(
      action,
      v.status,
      v.available_actions,
      `${action} needs a decision on every protected file first: ${undecided.join(', ')} ` +
        `(use --approve-file/--revert-file, or --approve-all/--revert-all)`,
      { pending_files: undecided },
    );
  }
  return out;
}

/** Restores reverted files on the task branch, each in a commit of its own. */
export async function applyReverts(app: App, v: TaskView, planned: Planned[]): Promise<Planned[]> {
  const config = await app.config();
  const wt = worktreePath(app.repo, v.id, config.worktree_dir);
  const byFile = new Map<string, PendingViolation>(v.pending_violations.map((p) => [p.file, p]));
  const reverts = planned.filter((p) => p.decision === 'revert');
  // Every revert is checked before any is made: a bad record reverts nothing.
  for (const p of reverts) await assertRestorable(wt, p.file, byFile.get(p.file)!.base);
  for (const p of reverts) {
    const viol = byFile.get(p.file)!;
    const c = await restoreFile(
      wt,
      p.file,
      viol.base,
      `lazy: revert protected file ${p.file}\n\nLazy-Task: ${v.id}\nLazy-Op: revert\n`,
    );
    if (c) p.commit = c;
  }
  return planned;
}

export function recordDecisions(d: Draft, planned: Planned[]): void {
  for (const p of planned) d.decide({ file: p.file, decision: p.decision, ...(p.commit ? { commit: p.commit } : {}) });
}
