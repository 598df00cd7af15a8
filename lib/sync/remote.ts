import { git } from '../core/git.js';
import { usageError, fetchFailed, pushFailed } from '../core/errors.js';
import type { Repo } from '../core/repo.js';

// Remote plumbing: refspecs and the git CLI transfers. isomorphic-git cannot move a
// refs/lazy/* namespace (no ssh/file transport, one ref per push), so the git CLI does.
// A pull asks the remote for its tips (ls-remote) and fetches the objects without
// writing a single ref; local refs move only after validation. Remote-tracking copies,
// which plain `git fetch` keeps once `lazy init --remote` adds the refspec, live under
// refs/remotes/<remote>/lazy/, outside refs/lazy/, so a refs/lazy/* glob never sweeps them up.

export const trackingPrefix = (remote: string) => `refs/remotes/${remote}/lazy/`;
export const fetchSpec = (remote: string) => `+refs/lazy/*:${trackingPrefix(remote)}*`;
/** No '+': the remote accepts fast-forwards only; nothing is ever force-pushed. */
export const PUSH_SPEC = 'refs/lazy/*:refs/lazy/*';

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

/** The remote's refs/lazy/* tips: refname → oid. */
export async function remoteTips(repo: Repo, remote: string): Promise<Map<string, string>> {
  const r = await git(['ls-remote', '--refs', remote, 'refs/lazy/*'], { cwd: repo.cwd, allowFail: true });
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
export async function fetchObjects(repo: Repo, remote: string, progress: boolean): Promise<void> {
  const r = await git(
    [
      'fetch',
      '--dry-run',
      '--no-tags',
      '--no-write-fetch-head',
      ...(progress ? ['--progress'] : ['--quiet']),
      remote,
      fetchSpec(remote),
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

/**
 * Pushes refs/lazy/* less the refs in `except` (negative refspecs), fast-forward only;
 * returns git's per-ref verdicts. One pattern, not a list of refs: git matches each
 * listed refspec against every local ref, which costs more than the transfer.
 */
export async function pushLazy(repo: Repo, remote: string, progress: boolean, except: string[]): Promise<PushLine[]> {
  const specs = [PUSH_SPEC, ...except.map((r) => `^${r}`)];
  const r = await git(['push', '--porcelain', ...(progress ? ['--progress'] : []), remote, ...specs], {
    cwd: repo.cwd,
    allowFail: true,
  });
  const lines: PushLine[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^(.)\t([^:]+):([^\t]+)\t(.*)$/.exec(line);
    if (m) lines.push({ flag: m[1]!, ref: m[3]!, summary: m[4]! });
  }
  if (r.code !== 0 && !lines.some((l) => l.flag === '!')) {
    throw pushFailed(`git push ${remote} failed: ${r.stderr.trim()}`, { remote, stderr: r.stderr.trim() });
  }
  return lines;
}

/** The refspecs that make plain `git fetch` / `git push` carry tasks; what is missing. */
export async function missingRefspecs(repo: Repo, remote: string): Promise<{ fetch: boolean; push: boolean }> {
  const get = async (key: string) =>
    (await git(['config', '--get-all', key], { cwd: repo.cwd, allowFail: true })).stdout.split('\n').filter(Boolean);
  const fetch = await get(`remote.${remote}.fetch`);
  const push = await get(`remote.${remote}.push`);
  return { fetch: !fetch.includes(fetchSpec(remote)), push: !push.includes(PUSH_SPEC) };
}

export async function addRefspecs(repo: Repo, remote: string): Promise<string[]> {
  const missing = await missingRefspecs(repo, remote);
  const done: string[] = [];
  if (missing.fetch) {
    await git(['config', '--add', `remote.${remote}.fetch`, fetchSpec(remote)], { cwd: repo.cwd });
    done.push(`remote.${remote}.fetch += ${fetchSpec(remote)}`);
  }
  if (missing.push) {
    // A push refspec replaces git's default of pushing the current branch; keep that too.
    const had = (
      await git(['config', '--get-all', `remote.${remote}.push`], { cwd: repo.cwd, allowFail: true })
    ).stdout.trim();
    if (!had) {
      await git(['config', '--add', `remote.${remote}.push`, 'HEAD'], { cwd: repo.cwd });
      done.push(`remote.${remote}.push += HEAD (so plain git push still pushes your branch)`);
    }
    await git(['config', '--add', `remote.${remote}.push`, PUSH_SPEC], { cwd: repo.cwd });
    done.push(`remote.${remote}.push += ${PUSH_SPEC}`);
  }
  return done;
}
