import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../core/git.js';
import { madeHere, placeOf, type Place } from '../core/place.js';
import type { TaskView } from '../model/fold.js';
import { situate, type Situated, type Situation } from '../model/situation.js';
import { isActive, isTerminal, type Status } from '../model/status.js';
import type { Action } from '../model/table.js';
import { FACTS, factsOf, type RowFacts } from '../store/listing/rows.js';
import { refreshIndex, type LeanRow } from '../store/listing/index.js';
import type { ReviewGap } from './accept/guard.js';
import type { App } from './app.js';
import { landingBranch } from '../model/landing.js';
import { BRANCH_NS } from '../core/names.js';

// The reading surfaces' available_actions: the table's, less what this clone's situation refuses
// (lib/model/situation.ts), gathered with as little git as the answer needs: one for-each-ref for every task
// branch, and the full review check only for a branch that is not at the head its review recorded.

/** The actions whose refusal reads the task branch (accept and submit, launching on an open session, and run). */
const ON_BRANCH: readonly Action[] = [
  'accept',
  'submit',
  'unblock',
  'answer',
  'resume',
  'ask',
  'repair',
  'follow_up',
  'pair',
  'run',
];
const LANDS: readonly Action[] = ['accept', 'submit'];

interface Subject {
  id: string;
  status: Status;
  parent: string | null;
  available_actions: readonly Action[];
  facts: RowFacts;
}

/** What a batch of subjects is judged against: this clone, its branches, the open tasks' family. */
interface Context {
  here: Place;
  heads: () => Promise<Map<string, string>>;
  family: () => Promise<LeanRow[]>;
  /** The view of one task, for the full review check. */
  view: (id: string) => Promise<TaskView>;
}

const needs = (s: Subject, list: readonly Action[]) =>
  s.status !== 'merging' && s.available_actions.some((a) => list.includes(a));

/**
 * Every lazy/<id> branch in this clone by task id, read from git's ref files (packed-refs, then the loose refs that
 * override it): a list is not worth a git process. Anything else (reftable, a symbolic ref) asks for-each-ref.
 */
async function branchHeads(cwd: string, commonDir: string): Promise<Map<string, string>> {
  const heads = new Map<string, string>();
  const packed = readOr(join(commonDir, 'packed-refs'));
  for (const line of packed.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0 && line.startsWith(BRANCH_NS, sp + 1))
      heads.set(line.slice(sp + 1 + BRANCH_NS.length), line.slice(0, sp));
  }
  const dir = join(commonDir, BRANCH_NS);
  let loose: string[] = [];
  try {
    loose = readdirSync(dir);
  } catch {
    /* none loose */
  }
  for (const id of loose) {
    const text = readOr(join(dir, id)).trim();
    if (!/^[0-9a-f]{40,64}$/.test(text)) return forEachRef(cwd);
    heads.set(id, text);
  }
  return heads;
}

const readOr = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

async function forEachRef(cwd: string): Promise<Map<string, string>> {
  const r = await git(['for-each-ref', '--format=%(objectname) %(refname)', BRANCH_NS], { cwd });
  const heads = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const at = line.indexOf(` ${BRANCH_NS}`);
    if (at > 0) heads.set(line.slice(at + 1 + BRANCH_NS.length), line.slice(0, at));
  }
  return heads;
}

const once = <T>(f: () => Promise<T>): (() => Promise<T>) => {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
};

/**
 * `family`: rows that already hold every open task. Else the index is read for them; with `about` (one task and its
 * parent, as show asks), only the rows whose stored line names one of those ids are parsed, the rest skipped as text
 * (a show of a reviewed task in a 20,000-task repository paid about 100 ms to parse every open row).
 */
function contextOf(app: App, family?: LeanRow[], about?: string[]): Context {
  const cwd = app.repo.cwd;
  return {
    here: placeOf(app.repo),
    heads: once(() =>
      existsSync(join(app.repo.commonDir, 'reftable')) ? forEachRef(cwd) : branchHeads(cwd, app.repo.commonDir),
    ),
    family: once(async () =>
      family
        ? family
        : (await refreshIndex(cwd, app.repo.lazyDir, app.store.reader, false, openAbout(about), true)).rows,
    ),
    view: (id) => app.store.view(id),
  };
}

/** Open rows; with ids, only those whose stored line names one of them (the row itself, its children, the parent). */
const openAbout =
  (ids?: string[]) =>
  (status: string, line?: string): boolean =>
    !isTerminal(status as Status) && (!ids || line === undefined || ids.some((id) => line.includes(`"${id}"`)));

/** The situation of one subject, and the review gap when accept or submit needed the full check. */
async function situationOf(
  app: App,
  s: Subject,
  c: Context,
  known?: TaskView,
): Promise<{ situation: Situation; gap: ReviewGap | null }> {
  const situation: Situation = {};
  let gap: ReviewGap | null = null;
  const w = s.facts.worked;
  if (s.status === 'working' && w && !madeHere(w, c.here)) situation.elsewhere = true;
  if (needs(s, ON_BRANCH)) {
    const head = (await c.heads()).get(s.id);
    if (head === undefined) {
      situation.noBranch = true;
      // An accepted task's branch is made again at its reviewed head on demand, while this clone holds that commit.
      const reviewed = s.facts.reviewed_head;
      if (s.status === 'complete' && reviewed && needs(s, ['follow_up', 'run']))
        situation.restorable = (await app.store.reader.objects.read(reviewed))?.type === 'commit';
    } else if (needs(s, LANDS) && head !== s.facts.reviewed_head) {
      // Not at the reviewed head: only the full check knows (a person's accept of a subtask counts as reviewed).
      const { reviewGap } = await import('./accept/guard.js');
      const v = known ?? (await c.view(s.id));
      gap = await reviewGap(app, v, landingBranch(v));
      if (gap) situation.unreviewed = true;
    }
  }
  if (needs(s, ['accept'])) {
    const family = await c.family();
    if (family.some((r) => r.parent === s.id && !isTerminal(r.status))) situation.openChildren = true;
    const parent = s.parent ? family.find((r) => r.id === s.parent) : undefined;
    if (parent && isActive(parent.status)) situation.parentActive = true;
  }
  return { situation, gap };
}

const fold = (s: Subject, situation: Situation): Situated =>
  situate(
    {
      status: s.status,
      available_actions: s.available_actions,
      session_open: s.facts.session_open,
      pending: s.facts.pending,
    },
    situation,
  );

/** One task as show and wait report it: its actions here, and the review gap found on the way (null: none). */
export async function situateView(app: App, v: TaskView): Promise<Situated & { gap: ReviewGap | null }> {
  const s: Subject = { ...v, facts: factsOf(v) };
  const about = v.parent ? [v.id, v.parent] : [v.id];
  const { situation, gap } = await situationOf(app, s, contextOf(app, undefined, about), v);
  return { ...fold(s, situation), gap };
}

/**
 * Listed rows, in place: each row's available_actions becomes its actions here, and gains action_conditions.
 * `family`: rows that already hold every open task (a list of the open ones), so no second read is needed.
 */
export async function situateRows<R extends LeanRow & { [FACTS]?: RowFacts }>(
  app: App,
  rows: R[],
  family?: LeanRow[],
): Promise<(R & Situated)[]> {
  const c = contextOf(app, family);
  const out = rows as (R & Situated)[];
  for (const r of out) {
    const facts = r[FACTS];
    if (!facts) {
      r.action_conditions = [];
      continue;
    }
    const s: Subject = { id: r.id, status: r.status, parent: r.parent, available_actions: r.available_actions, facts };
    Object.assign(r, fold(s, (await situationOf(app, s, c)).situation));
  }
  return out;
}
