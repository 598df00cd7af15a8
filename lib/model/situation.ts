import type { Action } from './triggers.js';
import type { Status } from './status.js';

// What the table cannot know from a task's history: facts of this clone (where the running turn runs, which task
// branches it holds, whether the branch is what the review saw) and of the task's family. The reading surfaces
// (show, list, inbox, wait, their MCP tools) fold them into available_actions through this one function
// (lib/ops/situated.ts gathers them), and each refusal it predicts names its rule here when it throws, so a listed
// action is one the command runs. What a caller must add to an action that stays listed is a condition.

/** Something wrong with the task here, each predicting one family of refusals. Absent means fine. */
export interface Situation {
  /** The running turn runs in another clone (lib/workspace/branch/index.ts assertNotWorkingElsewhere, stop). */
  elsewhere?: boolean;
  /**
   * lazy/<id> is not in this clone: lost, never made (never started), or not pulled yet (branchGone, accept's and
   * submit's no-work refusals, run's no-branch refusal).
   */
  noBranch?: boolean;
  /**
   * lazy/<id> is gone but made again on demand: a complete task whose reviewed head this clone holds (the accept
   * deleted the branch; lib/workspace/branch/restore.ts). A follow-up and run stay listed; landing needs no branch.
   */
  restorable?: boolean;
  /** The branch is not the head the latest review recorded (lib/ops/accept/guard.ts reviewGap: unreviewed_head). */
  unreviewed?: boolean;
  /** Subtasks still open: accepting removes the branch they build on (lib/ops/accept/guard.ts assertFamily). */
  openChildren?: boolean;
  /** The parent is active: a subtask is not merged into a live worktree (assertFamily). */
  parentActive?: boolean;
}

/** What an action that stays listed needs from its caller; a closed vocabulary, documented in docs/lifecycle.md. */
export type Requirement =
  /** A decision on every pending protected file: --approve-file/--revert-file, or --approve-all/--revert-all. */
  | 'decisions'
  /** The turn runs in another clone: `lazy stop --force` breaks its claim, a plain stop is refused. */
  | 'force';

export interface ActionCondition {
  action: Action;
  requires: Requirement;
}

export interface Situated {
  available_actions: Action[];
  action_conditions: ActionCondition[];
}

/** What of the task the fold reads: the table's actions and two facts of its history. */
export interface SituatedTask {
  status: Status;
  available_actions: readonly Action[];
  /** An open session works on lazy/<id>: the actions that launch a turn or pair need the branch here. */
  session_open: boolean;
  /** Protected files wait for a decision. */
  pending: boolean;
}

const LAUNCH_ON_BRANCH: readonly Action[] = ['unblock', 'answer', 'resume', 'ask', 'repair', 'pair'];
const OFF_LIMITS_ELSEWHERE: readonly Action[] = ['unblock', 'accept', 'reject', 'close'];
const TAKES_DECISIONS: readonly Action[] = ['accept', 'unblock'];

/** The table's actions less those the situation refuses, and what the rest require. */
export function situate(t: SituatedTask, s: Situation): Situated {
  // merging: accept waits for the accept in flight or settles a dead one, whatever the branch or family.
  if (t.status === 'merging') return { available_actions: [...t.available_actions], action_conditions: [] };
  const off = new Set<Action>();
  const conditions: ActionCondition[] = [];
  if (s.elsewhere && t.status === 'working') for (const a of OFF_LIMITS_ELSEWHERE) off.add(a);
  if (s.noBranch) {
    off.add('accept').add('submit');
    if (t.session_open && t.status !== 'working') for (const a of LAUNCH_ON_BRANCH) off.add(a);
    // run and a follow-up work on the task's own branch (never the base): without it, or a way back to it, neither.
    if (!s.restorable) off.add('run').add('follow_up');
  }
  if (s.unreviewed) off.add('accept').add('submit');
  if (s.openChildren || s.parentActive) off.add('accept');
  const available_actions = t.available_actions.filter((a) => !off.has(a));
  if (s.elsewhere && t.status === 'working' && available_actions.includes('stop'))
    conditions.push({ action: 'stop', requires: 'force' });
  if (t.pending && t.status !== 'working')
    for (const a of available_actions)
      if (TAKES_DECISIONS.includes(a)) conditions.push({ action: a, requires: 'decisions' });
  return { available_actions, action_conditions: conditions };
}

/** A refusal's details: the actions still open once the situation that refused it is counted. */
export function situatedActions(
  v: { status: Status; available_actions: readonly Action[]; session: { ended_at: string | null } | null },
  s: Situation,
): Action[] {
  return situate({ ...v, session_open: !!v.session && v.session.ended_at === null, pending: false }, s)
    .available_actions;
}
