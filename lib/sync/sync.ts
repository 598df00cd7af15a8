import type { Repo } from '../core/repo.js';
import type { TaskReader } from '../store/read.js';
import { git } from '../core/git.js';
import { fetchLazy, pushLazy, trackingPrefix } from './remote.js';
import { mergeTracking, type MergeReport } from './pull.js';
import { mergeConfig, type ConfigOutcome } from './config-merge.js';

// pull = fetch + validated merge; push = fast-forward-only push of refs/lazy/*;
// sync = pull then push, again while a push is rejected because someone pushed meanwhile.

export interface PullResult extends Omit<MergeReport, 'views'> { remote: string; config: ConfigOutcome }
export interface PushResult { remote: string; new: string[]; updated: string[]; rejected: string[]; up_to_date: number }
export interface SyncResult { remote: string; rounds: number; pull: PullResult; push: PushResult }

export interface SyncDeps { repo: Repo; reader: TaskReader; progress?: (msg: string) => void; onViews?: (r: MergeReport) => Promise<void> }

const idOf = (ref: string) => ref.replace(/^refs\/lazy\/tasks\//, '');

export async function pull(d: SyncDeps, remote: string): Promise<PullResult> {
  d.progress?.(`fetching refs/lazy/* from ${remote}`);
  await fetchLazy(d.repo, remote, !!d.progress && process.stderr.isTTY);
  const report = await mergeTracking(d.repo, d.reader, remote, d.progress);
  const config = await mergeConfig(d.repo, d.reader.objects, remote);
  await d.onViews?.(report);
  const { views: _v, ...rest } = report;
  return { remote, ...rest, config };
}

export async function push(d: SyncDeps, remote: string): Promise<PushResult> {
  d.progress?.(`pushing refs/lazy/* to ${remote}`);
  const lines = await pushLazy(d.repo, remote, !!d.progress && process.stderr.isTTY);
  const out: PushResult = { remote, new: [], updated: [], rejected: [], up_to_date: 0 };
  const pushed: string[] = [];
  for (const l of lines) {
    const id = idOf(l.ref);
    if (l.flag === '*') { out.new.push(id); pushed.push(l.ref); } else if (l.flag === ' ' || l.flag === '+') { out.updated.push(id); pushed.push(l.ref); } else if (l.flag === '!') out.rejected.push(id);
    else if (l.flag === '=') out.up_to_date++;
  }
  // Keep the remote-tracking copies current even without the fetch refspec configured.
  if (pushed.length) {
    const input = pushed.map((ref) => `update ${trackingPrefix(remote)}${ref.slice('refs/lazy/'.length)} ${ref}`).join('\n') + '\n';
    await git(['update-ref', '--stdin'], { cwd: d.repo.cwd, input, allowFail: true });
  }
  return out;
}

const MAX_ROUNDS = 5;

export async function sync(d: SyncDeps, remote: string): Promise<SyncResult> {
  let round = 0;
  let total: SyncResult | undefined;
  for (;;) {
    round++;
    const p = await pull(d, remote);
    const q = await push(d, remote);
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
