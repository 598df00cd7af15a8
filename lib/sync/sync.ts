import type { Repo } from '../core/repo.js';
import type { TaskReader } from '../store/read.js';
import { git } from '../core/git.js';
import { fetchObjects, pushLazy, remoteTips } from './remote.js';
import { mergeRemote, type MergeReport } from './pull.js';
import { CONFIG_REF } from '../store/layout.js';
import { mergeConfig, type ConfigOutcome } from './config-merge.js';

// pull = fetch + validated merge; push = fast-forward-only push of refs/lazy/*;
// sync = pull then push, again while a push is rejected because someone pushed meanwhile.

export interface PullResult extends Omit<MergeReport, 'views'> { remote: string; config: ConfigOutcome }
export interface PushResult { remote: string; new: string[]; updated: string[]; rejected: string[]; up_to_date: number }
export interface SyncResult { remote: string; rounds: number; pull: PullResult; push: PushResult }

export interface SyncDeps { repo: Repo; reader: TaskReader; progress?: (msg: string) => void; onViews?: (r: MergeReport) => Promise<void> }

const idOf = (ref: string) => ref.replace(/^refs\/lazy\/tasks\//, '');

export async function pull(d: SyncDeps, remote: string): Promise<PullResult & { tips: Map<string, string> }> {
  const tips = await remoteTips(d.repo, remote);
  // Fetch only when some remote tip is not here yet: a no-op pull is one round trip.
  const have = await d.reader.objects.readMany([...new Set(tips.values())]);
  if (have.some((o) => !o)) {
    d.progress?.(`fetching refs/lazy/* from ${remote}`);
    await fetchObjects(d.repo, remote, !!d.progress && process.stderr.isTTY);
  }
  const report = await mergeRemote(d.repo, d.reader, remote, tips, d.progress);
  const config = await mergeConfig(d.repo, d.reader.objects, remote, tips.get(CONFIG_REF) ?? null);
  await d.onViews?.(report);
  const { views: _v, ...rest } = report;
  return { remote, ...rest, config, tips };
}

/** Pushes refs/lazy/*; given the remote's tips, pushes only what differs (nothing: no round trip). */
export async function push(d: SyncDeps, remote: string, knownTips?: Map<string, string>): Promise<PushResult> {
  const out: PushResult = { remote, new: [], updated: [], rejected: [], up_to_date: 0 };
  let refs: string[] | undefined;
  if (knownTips) {
    const local = (await git(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/lazy/'], { cwd: d.repo.cwd })).stdout.split('\n').filter(Boolean);
    refs = [];
    for (const line of local) {
      const [oid, ref] = line.split(' ') as [string, string];
      if (knownTips.get(ref) === oid) out.up_to_date++;
      else refs.push(ref);
    }
    if (refs.length === 0) return out;
    if (refs.length > 1000) refs = undefined; // a long list: let git compare the whole namespace
  }
  d.progress?.(`pushing refs/lazy/* to ${remote}`);
  const lines = await pushLazy(d.repo, remote, !!d.progress && process.stderr.isTTY, refs);
  if (!knownTips || !refs) out.up_to_date = 0;
  for (const l of lines) {
    const id = idOf(l.ref);
    if (l.flag === '*') out.new.push(id);
    else if (l.flag === ' ' || l.flag === '+') out.updated.push(id);
    else if (l.flag === '!') out.rejected.push(id);
    else if (l.flag === '=') out.up_to_date++;
  }
  return out;
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
    if (!q.rejected.length || round >= MAX_ROUNDS) return total;
    d.progress?.(`push rejected for ${q.rejected.length} task(s): someone pushed meanwhile; pulling again`);
  }
}

/** Figures across rounds; rejections are those of the last round (earlier ones were retried). */
function accumulate(t: SyncResult, p: PullResult, q: PushResult, rounds: number): SyncResult {
  const uniq = (a: string[], b: string[]) => [...new Set([...a, ...b])];
  return {
    remote: t.remote, rounds,
    pull: { ...p, new: uniq(t.pull.new, p.new), updated: uniq(t.pull.updated, p.updated), merged: uniq(t.pull.merged, p.merged), concurrent: [...t.pull.concurrent, ...p.concurrent] },
    push: { ...q, new: uniq(t.push.new, q.new), updated: uniq(t.push.updated, q.updated) },
  };
}
