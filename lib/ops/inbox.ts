import type { Row } from '../store/listing/index.js';
import type { ActionCondition, Situated } from '../model/situation.js';
import { situateRows } from './situated.js';
import { liveness, type ProcIdentity } from '../core/proc.js';
import type { App } from './app.js';
import { acceptStashes, stashAdvice } from '../workspace/stash.js';
import { readListing, rowFilter, type RowFilter } from './list.js';

export interface InboxItem {
  id: string;
  goal: string;
  status: string;
  /** As the task document carries it; inbox adds the kinds `merging` and `stash`. */
  attention: { kind: string; reason: string; since: string };
  available_actions: string[];
  /** What a listed action requires of its caller (lib/model/situation.ts). */
  action_conditions: ActionCondition[];
}

const itemOf = (r: Row & Partial<Situated>, attention: InboxItem['attention']): InboxItem => ({
  id: r.id,
  goal: r.goal,
  status: r.status,
  attention,
  available_actions: r.available_actions,
  action_conditions: r.action_conditions ?? [],
});

/**
 * Only what needs a human, oldest first: blocked tasks (review, decision, failure),
 * conflicts, interrupted tasks nothing resumes (stopped, breaker tripped, a merge-and-fix
 * crash, a turn doctor ended), and merges
 * with no live owner. Running turns, retries and automatic recovery never appear.
 */
export async function inbox(app: App, input: RowFilter = {}): Promise<InboxItem[]> {
  return inboxFrom(app, input, await readListing(app));
}

/**
 * The inbox from a read of every task's detail row (readListing): the rows it shows are its own copies, so a read
 * shared with lists (the board's) leaves their rows as it found them.
 */
export async function inboxFrom(
  app: App,
  input: RowFilter,
  { rows, prompt }: { rows: Row[]; prompt?: (id: string) => string | null },
): Promise<InboxItem[]> {
  const filter = rowFilter(input, prompt);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const own = new Map<string, Row>();
  const mine = (r: Row): Row => own.get(r.id) ?? (own.set(r.id, { ...r }), own.get(r.id)!);
  const picked: { r: Row; attention: InboxItem['attention'] }[] = [];
  for (const r of rows) {
    if (!filter.keep(r)) continue;
    if (r.attention)
      picked.push({
        r: mine(r),
        attention: { kind: r.attention.kind, reason: r.attention.reason, since: r.attention.since },
      });
    else if (r.status === 'merging') {
      const owner = r.merging_owner as ProcIdentity | null;
      if (!owner || liveness(owner) === 'dead')
        picked.push({
          r: mine(r),
          attention: {
            kind: 'merging',
            reason: 'an accept stopped midway and nobody owns the merge',
            since: r.updated_at,
          },
        });
    }
  }
  // Work an accept could not restore stays here for as long as git still holds the stash.
  const stashes: { r: Row | undefined; task: string | null; attention: InboxItem['attention'] }[] = [];
  for (const s of await acceptStashes(app.repo.cwd, app.repo.commonDir)) {
    const r = s.task ? byId.get(s.task) : undefined;
    if (filter.active && !(r && filter.keep(r))) continue;
    stashes.push({
      r: r && mine(r),
      task: s.task,
      attention: { kind: 'stash', reason: `your uncommitted work is kept in ${stashAdvice(s)}`, since: s.date },
    });
  }
  // The actions this clone can take (lib/ops/situated.ts); the rows hold every task, the open ones among them.
  await situateRows(app, [...own.values()], rows);
  const items: InboxItem[] = [
    ...picked.map(({ r, attention }) => itemOf(r, attention)),
    ...stashes.map(({ r, task, attention }) =>
      r
        ? itemOf(r, attention)
        : { id: task ?? '-', goal: '', status: '', attention, available_actions: [], action_conditions: [] },
    ),
  ];
  const since = (i: InboxItem) => i.attention.since;
  items.sort((a, b) => (since(a) < since(b) ? -1 : since(a) > since(b) ? 1 : a.id < b.id ? -1 : 1));
  // --sort orders by the task's own fields; a stash with no task keeps its place at the end.
  const order = filter.order;
  if (order) items.sort((a, b) => sortKey(byId, a.id, b.id, order));
  return filter.limit ? items.slice(0, filter.limit) : items;
}

function sortKey<R>(rows: Map<string, R>, a: string, b: string, order: (x: R, y: R) => number): number {
  const x = rows.get(a);
  const y = rows.get(b);
  return x && y ? order(x, y) : x ? -1 : y ? 1 : 0;
}
