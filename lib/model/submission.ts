import type { TurnView } from './views.js';

// A submitted task's hand-off to a forge, as its latest `submission` turn recorded it:
// derived on every read, never stored anywhere else. Turn details are free-form (and may
// arrive by pull), so only values of the expected shape are taken.

export interface Submission {
  /** The pull request's address, the last http(s) URL the PR command printed; null when none. */
  url: string | null;
  remote: string | null;
  branch: string | null;
  head: string | null;
  at: string;
  /** False when the PR command failed (or could not run); `error` says how. */
  ok: boolean;
  error: string | null;
}

const str = (x: unknown): string | null => (typeof x === 'string' && x ? x : null);

export const URL_RE = /https?:\/\/[^\s<>"'`]+/g;

/** Null when no submission turn exists. */
export function submissionOf(turns: readonly TurnView[]): Submission | null {
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i]!;
    if (t.kind !== 'submission' || t.role !== 'system') continue;
    const d = t.details ?? {};
    const url = str(d.url);
    const error = str(d.error);
    return {
      url: url && new RegExp(`^${URL_RE.source}$`).test(url) ? url : null,
      remote: str(d.remote),
      branch: str(d.branch),
      head: str(d.head),
      at: t.timestamp,
      ok: !error,
      error,
    };
  }
  return null;
}

/** The last http(s) URL in a command's output, with the punctuation prose puts after one trimmed. */
export function lastUrl(text: string): string | null {
  const all = text.match(URL_RE);
  return all ? all.at(-1)!.replace(/[.,;:!?)\]}]+$/, '') : null;
}

/** What ends a pull request a submission opened: merged or closed upstream, or the task reopened. */
const PR_ENDED = new Set(['pr_closed', 'merge_done', 'reopen']);

/**
 * The pull request a submission recorded that nothing has ended since, null when none: a submit
 * again (a retry, or after unblock) pushes to its branch and keeps it instead of opening another.
 */
export function standingPr(
  turns: readonly TurnView[],
  changelog: readonly { clock: number; trigger: string }[],
): string | null {
  let ended = -Infinity;
  for (const c of changelog) if (PR_ENDED.has(c.trigger) && c.clock > ended) ended = c.clock;
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i]!;
    if (t.clock <= ended) return null;
    if (t.kind !== 'submission' || t.role !== 'system') continue;
    const url = submissionOf([t])?.url;
    if (url) return url;
  }
  return null;
}
