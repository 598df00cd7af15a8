// Every failure lazy reports has one snake_case code, and every code one exit code: the
// contract callers script against. ERROR_EXIT is the one code→exit table; docs/commands.md "Exit codes"
// is law, and test/core/errors.test.ts pins this table against it.

export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  notFound: 3,
  notAllowed: 4,
  busy: 5,
  invalidData: 6,
  external: 7,
} as const;

export type Exit = (typeof EXIT)[keyof typeof EXIT];

export const ERROR_EXIT = {
  unexpected: EXIT.unexpected,
  id_exhausted: EXIT.unexpected,
  usage: EXIT.usage,
  not_a_repository: EXIT.usage,
  cancelled: EXIT.usage,
  untrusted_config: EXIT.usage,
  task_not_found: EXIT.notFound,
  ambiguous_id: EXIT.notFound,
  action_not_allowed: EXIT.notAllowed,
  unauthorized: EXIT.notAllowed,
  forbidden: EXIT.notAllowed,
  aborted: EXIT.notAllowed,
  merge_conflict: EXIT.notAllowed,
  merge_failed: EXIT.notAllowed,
  unreviewed_head: EXIT.notAllowed,
  task_full: EXIT.notAllowed,
  busy: EXIT.busy,
  timeout: EXIT.busy,
  contention: EXIT.busy,
  push_rejected: EXIT.busy,
  invalid_data: EXIT.invalidData,
  git_missing: EXIT.external,
  git_failed: EXIT.external,
  git_identity_missing: EXIT.external,
  agent_missing: EXIT.external,
  base_branch_missing: EXIT.external,
  worktree_mismatch: EXIT.external,
  index_locked: EXIT.external,
  fetch_failed: EXIT.external,
  push_failed: EXIT.external,
} as const satisfies Record<string, Exit>;

export type ErrorCode = keyof typeof ERROR_EXIT;

export type Details = Record<string, unknown>;

export class LazyError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: number;
  readonly details: Details;
  /** The exit comes from ERROR_EXIT; only `unexpected()` overrides it (a broken invariant is exit 1). */
  constructor(code: ErrorCode, message: string, details: Details = {}, exitCode: Exit = ERROR_EXIT[code]) {
    super(message);
    this.code = code;
    this.exitCode = exitCode;
    this.details = details;
  }

  /** The same error (code, exit, details) told with another message. */
  reworded(message: string): LazyError {
    return new LazyError(this.code, message, this.details, this.exitCode as Exit);
  }
}

/** A factory names the code it raises, so a test can check every code has one. */
type Factory<A extends unknown[]> = ((...args: A) => LazyError) & { readonly code: ErrorCode };

function factory<A extends unknown[]>(code: ErrorCode, make: (...args: A) => LazyError): Factory<A> {
  return Object.assign(make, { code });
}

/** The plain factory of a code: a message and its details. */
const plain = (code: ErrorCode) =>
  factory(code, (message: string, details: Details = {}) => new LazyError(code, message, details));

/**
 * An invariant broke: exit 1 whatever the code. Without a code it is `unexpected`; with one it
 * keeps the name of what broke (accept's "target does not contain the squash commit").
 */
export const unexpected = factory(
  'unexpected',
  (message: string, details: Details = {}, code: ErrorCode = 'unexpected') =>
    new LazyError(code, message, details, EXIT.unexpected),
);
export const idExhausted = plain('id_exhausted');

export const usageError = plain('usage');
export const notARepository = plain('not_a_repository');
/** A person said no (a declined prompt, an empty editor): nothing was changed, as gh exits for a cancelled command. */
export const cancelled = plain('cancelled');
export const untrustedConfig = plain('untrusted_config');

export const notFound = plain('task_not_found');
export const ambiguous = factory(
  'ambiguous_id',
  (prefix: string, candidates: string[]) =>
    new LazyError(
      'ambiguous_id',
      `id prefix '${prefix}' matches ${candidates.length} tasks: ${candidates.join(', ')}`,
      { prefix, candidates },
    ),
);

export const notAllowed = factory(
  'action_not_allowed',
  (action: string, status: string, available: string[], message?: string, details: Details = {}) =>
    new LazyError(
      'action_not_allowed',
      message ?? `cannot ${action} a task that is ${status}; available actions: ${available.join(', ') || 'none'}`,
      { action, status, available_actions: available, ...details },
    ),
);
export const aborted = plain('aborted');
export const mergeConflict = plain('merge_conflict');
export const mergeFailed = plain('merge_failed');
export const unreviewedHead = plain('unreviewed_head');
export const taskFull = plain('task_full');
/** lazy ui: a request without the page's token (401). */
export const unauthorized = plain('unauthorized');
/** lazy ui: a request naming a foreign host, or a change from a foreign origin (403). */
export const forbidden = plain('forbidden');

export const busy = plain('busy');
export const timeout = plain('timeout');
export const contention = plain('contention');
export const pushRejected = plain('push_rejected');

export const invalidData = plain('invalid_data');

export const gitMissing = plain('git_missing');
export const gitFailed = plain('git_failed');
export const gitIdentityMissing = plain('git_identity_missing');
export const agentMissing = plain('agent_missing');
export const baseBranchMissing = plain('base_branch_missing');
export const worktreeMismatch = plain('worktree_mismatch');
export const indexLocked = plain('index_locked');
export const fetchFailed = plain('fetch_failed');
export const pushFailed = plain('push_failed');

/** Normalises anything thrown into a LazyError; unknown errors are exit 1. */
export function asLazyError(err: unknown): LazyError {
  if (err instanceof LazyError) return err;
  const e = err as NodeJS.ErrnoException;
  return unexpected(e?.message ?? String(err), e?.stack ? { stack: e.stack.split('\n').slice(0, 6).join('\n') } : {});
}
