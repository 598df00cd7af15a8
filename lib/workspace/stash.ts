import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../core/git.js';
import { STASH_REF } from '../core/names.js';

// Work an accept stashed and could not restore. git is the one truth: an entry is
// listed while it is still in the stash list, and disappears once the user pops it.

const STASH_PREFIX = 'lazy accept';
const STASH_SUFFIX = ': your uncommitted work in ';
/** Parses what acceptStashMessage writes (the task is absent in stashes of older versions). */
const STASH_RE = new RegExp(`${STASH_PREFIX}(?: ([0-9a-z]{8}))?${STASH_SUFFIX}(.+)$`);

/** The stash message an accept writes: names the task and the checkout it emptied. */
export const acceptStashMessage = (task: string, checkout: string) =>
  `${STASH_PREFIX}${task ? ` ${task}` : ''}${STASH_SUFFIX}${checkout}`;

export interface AcceptStash {
  ref: string;
  commit: string;
  message: string;
  task: string | null;
  checkout: string | null;
  date: string;
}

export interface StashEntry {
  ref: string;
  commit: string;
  date: string;
  message: string;
}

/** Every stash entry of the repository, newest first (one git call). */
export async function stashEntries(cwd: string): Promise<StashEntry[]> {
  const r = await git(['stash', 'list', '--format=%gd%x00%H%x00%cI%x00%gs'], { cwd, allowFail: true });
  const out: StashEntry[] = [];
  for (const line of r.stdout.split('\n')) {
    const [ref, commit, date, message] = line.split('\0');
    if (ref && commit && message) out.push({ ref, commit, date: new Date(date ?? 0).toISOString(), message });
  }
  return out;
}

/** Stash entries an accept made that are still there; costs one stat when nothing is stashed. */
export async function acceptStashes(cwd: string, commonDir: string): Promise<AcceptStash[]> {
  if (!existsSync(join(commonDir, 'logs', STASH_REF))) return [];
  const out: AcceptStash[] = [];
  for (const e of await stashEntries(cwd)) {
    const m = STASH_RE.exec(e.message);
    if (m) out.push({ ...e, task: m[1] ?? null, checkout: m[2] ?? null });
  }
  return out;
}

/** How to get one back, for messages. */
export const stashAdvice = (s: AcceptStash) =>
  `stash ${s.commit} (${s.ref}, "${s.message}"); ` +
  `restore it in ${s.checkout ?? 'that checkout'} with: git stash pop ${s.ref}`;
