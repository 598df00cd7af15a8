import { git } from '../core/git.js';
import { usageError, fetchFailed, pushFailed } from '../core/errors.js';
import type { Repo } from '../core/repo.js';
import {
  BRANCH_GLOB,
  BRANCH_PUSH_SPEC,
  branchFetchSpec,
  exceptSpec,
  fetchSpec,
  headRef,
  headsFetchSpec,
  LAZY_GLOB,
  PUSH_SPEC,
} from '../core/names.js';

// Remote plumbing: refspecs and the git CLI transfers. isomorphic-git cannot move a
// refs/lazy/* namespace (no ssh/file transport, one ref per push), so the git CLI does.
// A pull asks the remote for its tips (ls-remote) and fetches the objects without
// writing a single ref; local refs move only after validation. Remote-tracking copies,
// which plain `git fetch` keeps once `lazy init --remote` adds the refspec, live under
// refs/remotes/<remote>/lazy/, outside refs/lazy/, so a refs/lazy/* glob never sweeps them up.
// Task branches travel as refs/heads/lazy/<id> (branches.ts, branch-pull.ts) in the same
// ls-remote, fetch and push.

export async function defaultRemote(repo: Repo, name?: string): Promise<string> {
  const remotes = (await git(['remote'], { cwd: repo.cwd })).stdout.split('\n').filter(Boolean);
  if (name) {
    if (!remotes.includes(name))
      throw usageError(`no git remote named '${name}' (have: ${remotes.join(', ') || 'none'})`);
    return name;
  }
  if (remotes.includes('origin')) return 'origin';
  if (remotes.length === 1) return remotes[0]!;
  throw usageError(
    remotes.length
      ? `name a remote: ${remotes.join(', ')}`
      : 'this repository has no git remote: git remote add origin <url>',
  );
}

/**
 * The remote's refs/lazy/* and refs/heads/lazy/* tips (plus `heads`, e.g. submitted tasks' targets), in one round
 * trip: refname → oid.
 */
export async function remoteTips(repo: Repo, remote: string, heads: string[] = []): Promise<Map<string, string>> {
  const patterns = [LAZY_GLOB, BRANCH_GLOB, ...heads.map(headRef)];
  const r = await git(['ls-remote', '--refs', remote, ...patterns], { cwd: repo.cwd, allowFail: true });
  if (r.code !== 0)
    throw fetchFailed(`git ls-remote ${remote} failed: ${r.stderr.trim()}`, {
      remote,
      stderr: r.stderr.trim(),
    });
  const tips = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0) tips.set(line.slice(tab + 1), line.slice(0, tab));
  }
  return tips;
}

/**
 * Downloads the objects behind the remote's refs/lazy/* without moving any ref:
 * `fetch --dry-run` must hold the commits to judge fast-forwards, so it keeps them.
 * Writing no ref here is what keeps a first pull of 10,000 tasks near the cost of a
 * plain fetch (each loose ref write costs as much as the whole object transfer).
 */
export async function fetchObjects(repo: Repo, remote: string, progress: boolean, more: string[] = []): Promise<void> {
  const r = await git(
    [
      'fetch',
      '--dry-run',
      '--no-tags',
      '--no-write-fetch-head',
      ...(progress ? ['--progress'] : ['--quiet']),
      remote,
      fetchSpec(remote),
      ...more,
    ],
    {
      cwd: repo.cwd,
      allowFail: true,
      ...(progress ? { stderrInherit: true } : {}),
    },
  );
  if (r.code !== 0)
    throw fetchFailed(`git fetch ${remote} failed: ${r.stderr.trim()}`, {
      remote,
      stderr: r.stderr.trim(),
    });
}

export interface PushLine {
  flag: string;
  ref: string;
  summary: string;
}

/** git push --porcelain's per-ref verdicts (a deletion has no source: "-\t:refs/heads/lazy/<id>\t[deleted]"). */
export function pushLines(stdout: string): PushLine[] {
  const lines: PushLine[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(.)\t([^:]*):([^\t]+)\t(.*)$/.exec(line);
    if (m) lines.push({ flag: m[1]!, ref: m[3]!, summary: m[4]! });
  }
  return lines;
}

/** A refusal because the remote moved on (or moved while we pushed): pull, then push again. */
export const isBehind = (summary: string) =>
  /fetch first|non-fast-forward|stale info|failed to update ref|failed to lock/.test(summary);

/** What one push sends besides refs/lazy/*: refspecs (branches, leased deletions) and their options. */
export interface PushExtra {
  specs: string[];
  options: string[];
}

/**
 * Pushes refs/lazy/* less the refs in `except` (negative refspecs), fast-forward only, with
 * `extra` in the same invocation; returns git's per-ref verdicts. One pattern, not a list of
 * refs: git matches each listed refspec against every local ref, which costs more than the transfer.
 */
export async function pushLazy(
  repo: Repo,
  remote: string,
  progress: boolean,
  except: string[],
  extra: PushExtra = { specs: [], options: [] },
): Promise<PushLine[]> {
  const specs = [PUSH_SPEC, ...extra.specs, ...except.map(exceptSpec)];
  const args = ['push', '--porcelain', ...(progress ? ['--progress'] : []), ...extra.options, remote, ...specs];
  const r = await git(args, { cwd: repo.cwd, allowFail: true });
  const lines = pushLines(r.stdout);
  if (r.code !== 0 && !lines.some((l) => l.flag === '!')) {
    throw pushFailed(`git push ${remote} failed: ${r.stderr.trim()}`, { remote, stderr: r.stderr.trim() });
  }
  return lines;
}

/** The refspecs plain `git fetch` / `git push` need to carry tasks and their branches, each with whether it is there. */
async function refspecs(repo: Repo, remote: string): Promise<{ key: string; spec: string; have: boolean }[]> {
  const get = async (key: string) =>
    (await git(['config', '--get-all', key], { cwd: repo.cwd, allowFail: true })).stdout.split('\n').filter(Boolean);
  const fetch = await get(`remote.${remote}.fetch`);
  const push = await get(`remote.${remote}.push`);
  const f = `remote.${remote}.fetch`;
  const p = `remote.${remote}.push`;
  return [
    { key: f, spec: fetchSpec(remote), have: fetch.includes(fetchSpec(remote)) },
    {
      key: f,
      spec: branchFetchSpec(remote),
      have: fetch.includes(branchFetchSpec(remote)) || fetch.includes(headsFetchSpec(remote)),
    },
    { key: p, spec: PUSH_SPEC, have: push.includes(PUSH_SPEC) },
    { key: p, spec: BRANCH_PUSH_SPEC, have: push.includes(BRANCH_PUSH_SPEC) },
  ];
}

/** What is missing of the refspecs that make plain `git fetch` / `git push` carry tasks and their branches. */
export async function missingRefspecs(repo: Repo, remote: string): Promise<{ fetch: boolean; push: boolean }> {
  const specs = await refspecs(repo, remote);
  const lacks = (kind: string) => specs.some((s) => s.key.endsWith(kind) && !s.have);
  return { fetch: lacks('.fetch'), push: lacks('.push') };
}

export async function addRefspecs(repo: Repo, remote: string): Promise<string[]> {
  const done: string[] = [];
  const had = (
    await git(['config', '--get-all', `remote.${remote}.push`], { cwd: repo.cwd, allowFail: true })
  ).stdout.trim();
  for (const s of await refspecs(repo, remote)) {
    if (s.have) continue;
    if (s.key.endsWith('.push') && !had && !done.some((d) => d.includes('HEAD'))) {
      // A push refspec replaces git's default of pushing the current branch; keep that too.
      await git(['config', '--add', s.key, 'HEAD'], { cwd: repo.cwd });
      done.push(`${s.key} += HEAD (so plain git push still pushes your branch)`);
    }
    await git(['config', '--add', s.key, s.spec], { cwd: repo.cwd });
    done.push(`${s.key} += ${s.spec}`);
  }
  return done;
}
