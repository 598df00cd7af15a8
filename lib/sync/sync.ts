import type { Repo } from '../core/repo.js';
import type { TaskRead, TaskReader } from '../store/read.js';
import { placeOf } from '../core/place.js';
import { git } from '../core/git.js';
import { fetchObjects, isBehind, pushLazy, remoteTips, type PushLine } from './remote.js';
import {
  branchIdOf,
  branchState,
  classifyBranch,
  emptyBranchPush,
  planBranchPush,
  type BranchPush,
} from './branches.js';
import { settleBranches, wantedRefs, type BranchPull } from './branch-pull.js';
import { localTasks, submittedTargets } from './targets.js';
import { mergeRemote, type MergeReport } from './pull.js';
import { pullArchive, pushArchive, type ArchivePull } from './archive.js';
import { listTaskRefs } from '../store/refs.js';
import { mergeConfig, type ConfigOutcome } from './config-merge.js';
import { checkShard, checkTasks, isRejected, refusedName, type Rejected } from './check.js';
import { readMapAt } from '../store/archive/map.js';
import { readConfigAt } from '../store/config/index.js';
import { packWhenLoose } from '../store/packed.js';
import { ARCHIVE_NS, archiveRef, CONFIG_REF, HEADS_NS, LAZY_NS, TASKS_NS, taskRef } from '../core/names.js';

// pull = fetch + validated merge; push = fast-forward-only push of refs/lazy/* that a
// pull would take; sync = pull then push, again while someone pushed meanwhile.

/** config_held: shared safety settings the pull brought that are held back until lazy config trust. */
export interface PullResult extends Omit<MergeReport, 'views'> {
  remote: string;
  config: ConfigOutcome;
  config_rejected?: { reason: string; details: Record<string, unknown> };
  config_held?: string[];
  branches: BranchPull;
  /** What the pull learned about submitted tasks from the forge (merged, closed, new commits). */
  upstream: Settled[];
  /** The archive refs taken, and the task refs that left or came back with them (lib/sync/archive.ts). */
  archive: ArchivePull;
}
/** One submitted task's outcome a pull found upstream (reconcile's action, as the pull reports it). */
export interface Settled {
  task: string;
  action: string;
  detail: string;
}
/** rejected: refused by the remote, with git's reason; skipped: local refs a pull would refuse, never sent. */
export interface PushResult {
  remote: string;
  new: string[];
  updated: string[];
  rejected: Rejected[];
  skipped: Rejected[];
  up_to_date: number;
  branches: BranchPush;
  /** Tasks this push archived first (archive.after_days), and the task refs it deleted on the remote for them. */
  archived: string[];
  archived_on_remote: string[];
}
export interface SyncResult {
  remote: string;
  rounds: number;
  pull: PullResult;
  push: PushResult;
}

export interface SyncDeps {
  repo: Repo;
  reader: TaskReader;
  progress?: (msg: string) => void;
  onViews?: (r: MergeReport) => Promise<void>;
  /**
   * Runs after every pull's merge and branch step (ops fills it: the upstream settlement of submitted tasks,
   * lib/reconcile/upstream/index.ts settleSubmitted, which reads only the tracking refs this pull just wrote).
   */
  afterPull?: (known: { id: string; status: string }[]) => Promise<Settled[]>;
  /** Runs before every push (ops fills it: lazy archive of what is due); the ids it archived. */
  beforePush?: () => Promise<string[]>;
}

const idOf = (ref: string) => (ref.startsWith(TASKS_NS) ? ref.slice(TASKS_NS.length) : ref);

export async function pull(d: SyncDeps, remote: string): Promise<PullResult & { tips: Map<string, string> }> {
  const listed = await localTasks(d.repo, d.reader);
  const localTips = new Map(listed.refs.map((r) => [r.id, r.tip]));
  const local = new Set(localTips.keys());
  let { targets } = listed;
  // An empty clone wants every object: its fetch starts with the ls-remote, not after it (one round trip fewer);
  // whatever the remote gained between the two is fetched below.
  const first = local.size === 0;
  if (first) d.progress?.(`fetching refs/lazy/* from ${remote}`);
  let [tips] = await Promise.all([
    remoteTips(d.repo, remote, targets),
    first ? fetchObjects(d.repo, remote, !!d.progress) : null,
  ]);
  await fetchMissing(d, remote, tips, localTips, targets, first);
  // The archive first: it decides which remote task refs are already held, and which live refs the remote archived.
  const settled = await pullArchive(d.repo, d.reader, tips, new Map(localTips));
  const archive = settled.report;
  const refs = archive.dropped.length || archive.revived.length ? await listTaskRefs(d.repo.cwd) : listed.refs;
  const report = await mergeRemote(d.repo, d.reader, remote, settled.tips, d.progress, refs);
  const config = await mergeConfig(d.repo, d.reader.objects, remote, tips.get(CONFIG_REF) ?? null);
  await d.onViews?.(report);
  for (const id of report.new) local.add(id);
  // What the merge took is here: a second round trip need not look those tips up again.
  for (const id of [...report.new, ...report.updated]) localTips.set(id, tips.get(taskRef(id))!);
  // A task this pull brought in submitted has a target nobody asked for yet: one more round
  // trip, only then, so its merge upstream is seen by this pull, not the next.
  const late = submittedTargets(report.views.values()).filter((x) => !targets.includes(x));
  if (late.length) {
    targets = [...targets, ...late];
    tips = await remoteTips(d.repo, remote, targets);
    await fetchMissing(d, remote, tips, localTips, targets);
  }
  const settle = { repo: d.repo, reader: d.reader, remote, tips, targets, moved: report.views, known: local };
  const branches = await settleBranches(settle);
  // Every task's status now: the index's, or what the merge made of it.
  const statuses = new Map(listed.refs.map((r) => [r.id, r.status]));
  for (const [id, v] of report.views) statuses.set(id, v.status);
  const upstream = (await d.afterPull?.([...statuses].map(([id, status]) => ({ id, status })))) ?? [];
  // A pull that wrote refs loose (fewer creations than are written packed, updates, merges) packs them once many.
  await packWhenLoose(d.repo);
  const { views: _v, ...rest } = report;
  return {
    remote,
    ...rest,
    rejected: [...rest.rejected, ...settled.rejected],
    config: config.outcome,
    ...(config.reason ? { config_rejected: { reason: config.reason, details: config.details ?? {} } } : {}),
    ...(config.held ? { config_held: config.held } : {}),
    branches,
    upstream,
    archive,
    tips,
  };
}

/** Above this many remote tips this clone lacks the ref of, a pull fetches without asking which objects it has. */
const CHECK_MAX = 1000;

/**
 * Fetches only when some remote tip a pull would take is not here yet (a no-op pull is one round trip): refs/lazy/*,
 * and the branches of tasks known on either side and the submitted targets, in one fetch. A tip a local task ref
 * holds is here; the others are looked up, unless there are many (a first pull), when the fetch's own negotiation
 * costs less than the lookup.
 */
async function fetchMissing(
  d: SyncDeps,
  remote: string,
  tips: Map<string, string>,
  local: Map<string, string>,
  targets: string[],
  /** refs/lazy/* was fetched just now: every tip is looked up, most are here. */
  fetched = false,
): Promise<void> {
  const known = new Set(local.keys());
  for (const ref of tips.keys()) if (ref.startsWith(TASKS_NS)) known.add(ref.slice(TASKS_NS.length));
  const extra = wantedRefs(tips, known, targets);
  const lazyTips = [...tips].filter(([ref, oid]) => ref.startsWith(LAZY_NS) && local.get(idOf(ref)) !== oid);
  const oids = [...new Set([...lazyTips.map(([, oid]) => oid), ...extra.values()])];
  if (oids.length === 0) return;
  const have = oids.length > CHECK_MAX && !fetched ? [] : await d.reader.objects.exist(oids);
  const missing = new Set(oids.filter((_, i) => !have[i]));
  if (missing.size === 0) return;
  d.progress?.(`fetching refs/lazy/* and task branches from ${remote}`);
  const refs = [...extra].filter(([, oid]) => missing.has(oid)).map(([ref]) => ref);
  await fetchObjects(d.repo, remote, !!d.progress, refs);
}

/**
 * Local refs under refs/lazy/ that differ from the remote's, split into what may travel and what a pull would refuse.
 */
async function outgoing(
  d: SyncDeps,
  tips: Map<string, string>,
  out: PushResult,
  here: Set<string>,
  read: Map<string, TaskRead>,
  listing: string,
): Promise<string[]> {
  const lines = listing.split('\n').filter(Boolean);
  const tasks: { id: string; tip: string; ref: string }[] = [];
  const send: string[] = [];
  for (const line of lines) {
    const [oid, ref] = line.split(' ') as [string, string];
    if (ref.startsWith(TASKS_NS)) here.add(idOf(ref));
    if (tips.get(ref) === oid) {
      out.up_to_date++;
      continue;
    }
    const refused = refusedName(ref);
    if (refused) out.skipped.push(refused);
    else if (ref.startsWith(ARCHIVE_NS)) {
      // Sent only as a pull would take it: its map's new or changed entries checked against the remote's map.
      const shard = ref.slice(ARCHIVE_NS.length);
      const theirs = tips.get(ref);
      const known = theirs ? await readMapAt(d.reader.objects, theirs, shard) : new Map();
      const bad = await checkShard(d.reader, shard, oid, known);
      if (bad) out.skipped.push(bad);
      else send.push(ref);
    } else if (ref === CONFIG_REF) {
      const bad = await readConfigAt(d.reader.objects, oid, { ref, required: true }).then(
        () => null,
        (e: Error & { details?: Record<string, unknown> }) => ({
          id: ref,
          reason: e.message,
          details: { ref, ...e.details },
        }),
      );
      if (bad) out.skipped.push(bad);
      else send.push(ref);
    } else tasks.push({ id: idOf(ref), tip: oid, ref });
  }
  const checked = await checkTasks(d.reader, tasks);
  for (const t of tasks) {
    const r = checked.get(t.id)!;
    if (isRejected(r)) out.skipped.push(r);
    else {
      send.push(t.ref);
      read.set(t.id, r);
    }
  }
  return send;
}

/** Pushes what differs from the remote's tips (asking for them unless given), with the task branches, fast-forward only. */
export async function push(d: SyncDeps, remote: string, knownTips?: Map<string, string>): Promise<PushResult> {
  const branches = emptyBranchPush();
  // The remote's tips do not depend on this clone's archive step: asked while it runs, the round trip hides it.
  const asked = knownTips ? Promise.resolve(knownTips) : remoteTips(d.repo, remote);
  asked.catch(() => {}); // awaited below: a failure surfaces there, not as an unhandled rejection meanwhile
  const archived = (await d.beforePush?.()) ?? [];
  const out: PushResult = {
    remote,
    new: [],
    updated: [],
    rejected: [],
    skipped: [],
    up_to_date: 0,
    branches,
    archived,
    archived_on_remote: [],
  };
  // The local refs are read after the archive step moved them, while the remote's answer is on its way.
  const [tips, listing] = await Promise.all([
    asked,
    git(['for-each-ref', '--format=%(objectname) %(refname)', LAZY_NS], { cwd: d.repo.cwd }),
  ]);
  const remoteIds = [...tips.keys()].map(branchIdOf).filter((id): id is string => id !== null);
  const state = await branchState(d.repo.cwd, remote, remoteIds);
  const here = new Set<string>();
  const read = new Map<string, TaskRead>();
  const refs = await outgoing(d, tips, out, here, read, listing.stdout);
  const skipped = new Set(out.skipped.map((s) => s.id));
  const plan = await planBranchPush(
    d.repo.cwd,
    placeOf(d.repo),
    d.reader,
    tips,
    { here, skipped, read, state },
    branches,
  );
  const ok = new Set<string>();
  const landed = (shard: string, oid: string) => tips.get(archiveRef(shard)) === oid || ok.has(archiveRef(shard));
  const retire = async () =>
    (out.archived_on_remote = await pushArchive(d.repo, d.reader.objects, remote, tips, here, landed));
  if (refs.length === 0 && plan.sends === 0) return (await retire(), out);
  d.progress?.(`pushing ${refs.length} ref(s) under refs/lazy/ and ${plan.sends} branch(es) to ${remote}`);
  // Up-to-date refs cost git nothing; what differs was checked, and what failed is left out.
  const except = [...out.skipped.map((s) => String(s.details.ref)), ...plan.except];
  const lines = await pushLazy(d.repo, remote, !!d.progress, except, plan.extra);
  for (const l of lines) {
    if (l.ref.startsWith(HEADS_NS)) await classifyBranch(d.repo.cwd, plan, l, branches);
    else if (l.ref.startsWith(ARCHIVE_NS) && l.flag !== '!') ok.add(l.ref);
    // A refused archive ref is reported (and its retirements wait) as a refused task ref is.
    else classify(out, l);
  }
  await retire();
  return out;
}

function classify(out: PushResult, l: PushLine): void {
  const id = idOf(l.ref);
  if (l.flag === '*') out.new.push(id);
  else if (l.flag === ' ' || l.flag === '+') out.updated.push(id);
  else if (l.flag === '!') {
    // Behind: the remote has commits this clone lacks, or its ref moved while we pushed (a race at the remote).
    const behind = isBehind(l.summary);
    out.rejected.push({
      id,
      reason: behind
        ? `the remote has changes this clone lacks (git: ${l.summary}): lazy pull, then push again, or lazy sync`
        : `refused by the remote (git: ${l.summary})`,
      details: { ref: l.ref, git: l.summary, behind },
    });
  }
}

/**
 * Exit code of a push that could not deliver everything: 5 when the
 * remote moved on, 7 when it refused, 6 when local refs were skipped.
 */
export function pushExit(p: PushResult): number {
  const b = p.branches;
  if (p.rejected.some((r) => !r.details.behind) || b.refused.length) return 7;
  if (p.rejected.length || b.diverged.length || b.lease_failed.length) return 5;
  return p.skipped.length ? 6 : 0;
}

const MAX_ROUNDS = 5;

export async function sync(d: SyncDeps, remote: string): Promise<SyncResult> {
  let round = 0;
  let total: SyncResult | undefined;
  for (;;) {
    round++;
    const { tips, ...p } = await pull(d, remote);
    const q = await push(d, remote, tips);
    total = total ? accumulate(total, p, q, round) : { remote, rounds: 1, pull: p, push: q };
    // A branch git refused because objects were missing here (fetch first) is worth another pull too.
    const again =
      q.rejected.some((r) => r.details.behind) ||
      q.branches.diverged.some((r) => /fetch first/.test(String(r.details.git)));
    if (!again || round >= MAX_ROUNDS) return total;
    d.progress?.(`push rejected for ${q.rejected.length} task(s): someone pushed meanwhile; pulling again`);
  }
}

/** Figures across rounds; rejections are those of the last round (earlier ones were retried). */
function accumulate(t: SyncResult, p: PullResult, q: PushResult, rounds: number): SyncResult {
  const uniq = (a: string[], b: string[]) => [...new Set([...a, ...b])];
  return {
    remote: t.remote,
    rounds,
    pull: {
      ...p,
      new: uniq(t.pull.new, p.new),
      updated: uniq(t.pull.updated, p.updated),
      merged: uniq(t.pull.merged, p.merged),
      concurrent: [...t.pull.concurrent, ...p.concurrent],
      branches: mergeBranchPulls(t.pull.branches, p.branches),
      upstream: [...t.pull.upstream, ...p.upstream],
    },
    push: { ...q, new: uniq(t.push.new, q.new), updated: uniq(t.push.updated, q.updated) },
  };
}

/** Branch figures across pull rounds: what was done adds up; what is still wrong is the last round's. */
function mergeBranchPulls(a: BranchPull, b: BranchPull): BranchPull {
  const uniq = (x: string[], y: string[]) => [...new Set([...x, ...y])];
  return {
    created: uniq(a.created, b.created),
    updated: uniq(a.updated, b.updated),
    pruned: uniq(a.pruned, b.pruned),
    cleaned: uniq(a.cleaned, b.cleaned),
    targets: uniq(a.targets, b.targets),
    diverged: b.diverged,
    kept: b.kept,
  };
}
