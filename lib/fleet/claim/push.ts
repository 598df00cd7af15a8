import { git } from '../../core/git.js';
import { pushFailed } from '../../core/errors.js';
import type { Repo } from '../../core/repo.js';
import { isBehind, pushLines } from '../../sync/remote.js';
import { leaseOption, pushOidSpec } from '../../core/names.js';

// The fleet's one primitive: an atomic push in which every ref carries its expected old value
// (--force-with-lease=<ref>:<expected>, empty = must not exist). Either every ref moves or none
// does, so two workers claiming one task race on the remote's compare-and-swap and exactly one wins.

export interface RefUpdate {
  ref: string;
  /** The new value; null deletes the ref. */
  next: string | null;
  /** What the remote must hold now; null = the ref must not exist. */
  expected: string | null;
}

export interface Verdict {
  ok: boolean;
  /** Refs the remote turned away because they did not hold the expected value (the cause, not the atomic fallout). */
  stale: string[];
  refused: { ref: string; summary: string }[];
  /**
   * The remote's ref transaction failed without naming a moved ref: another push held its locks (a
   * deletion locks packed-refs). Nothing moved; whether the expectations still hold is unknown, so try again.
   */
  raced?: boolean;
}

const RACED = /atomic transaction failed|failed to lock|cannot lock/;

/** One atomic compare-and-swap push; a refusal is a verdict, a transport failure throws (exit 7). */
export async function casPush(repo: Repo, remote: string, updates: RefUpdate[]): Promise<Verdict> {
  const leases = updates.map((u) => leaseOption(u.ref, u.expected ?? ''));
  const specs = updates.map((u) => pushOidSpec(u.next ?? '', u.ref));
  const r = await git(['push', '--porcelain', '--atomic', ...leases, remote, ...specs], {
    cwd: repo.cwd,
    allowFail: true,
  });
  const refused = pushLines(r.stdout)
    .filter((l) => l.flag === '!')
    .map(({ ref, summary }) => ({ ref, summary }));
  if (r.code === 0 && refused.length === 0) return { ok: true, stale: [], refused: [] };
  if (refused.length === 0)
    throw pushFailed(`git push ${remote} failed: ${r.stderr.trim() || `exit ${r.code}`}`, {
      remote,
      stderr: r.stderr.trim(),
    });
  // The other refs of an atomic push are reported "atomic push failed"; the ones that moved say why.
  const causes = refused.filter((x) => !/atomic push failed/.test(x.summary));
  if (causes.length && causes.every((x) => RACED.test(x.summary)))
    return { ok: false, stale: [], refused, raced: true };
  const other = causes.filter((x) => !isBehind(x.summary));
  if (other.length || causes.length === 0)
    throw pushFailed(
      `git push ${remote} was refused: ${(other.length ? other : refused).map((x) => `${x.ref}: ${x.summary}`).join('; ')}`,
      {
        remote,
        refused,
        stderr: r.stderr.trim(),
      },
    );
  return { ok: false, stale: causes.map((x) => x.ref), refused };
}
