// Every failure lazy reports maps to one of these classes. The exit code and the
// snake_case code are the contract callers script against (see README "Exit codes").

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

export type Details = Record<string, unknown>;

export class LazyError extends Error {
  readonly code: string;
  readonly exitCode: number;
  readonly details: Details;
  constructor(code: string, message: string, exitCode: number, details: Details = {}) {
    super(message);
    this.code = code;
    this.exitCode = exitCode;
    this.details = details;
  }
}

export const usageError = (message: string, details: Details = {}) =>
  new LazyError('usage', message, EXIT.usage, details);

export const notFound = (message: string, details: Details = {}) =>
  new LazyError('task_not_found', message, EXIT.notFound, details);

export const ambiguous = (prefix: string, candidates: string[]) =>
  new LazyError(
    'ambiguous_id',
    `id prefix '${prefix}' matches ${candidates.length} tasks: ${candidates.join(', ')}`,
    EXIT.notFound,
    { prefix, candidates },
  );

export const notAllowed = (
  action: string,
  status: string,
  available: string[],
  message?: string,
  details: Details = {},
) =>
  new LazyError(
    'action_not_allowed',
    message ?? `cannot ${action} a task that is ${status}; available actions: ${available.join(', ') || 'none'}`,
    EXIT.notAllowed,
    { action, status, available_actions: available, ...details },
  );

export const busy = (message: string, details: Details = {}) => new LazyError('busy', message, EXIT.busy, details);

export const invalidData = (message: string, details: Details = {}) =>
  new LazyError('invalid_data', message, EXIT.invalidData, details);

export const external = (code: string, message: string, details: Details = {}) =>
  new LazyError(code, message, EXIT.external, details);

/** Normalises anything thrown into a LazyError; unknown errors are exit 1. */
export function asLazyError(err: unknown): LazyError {
  if (err instanceof LazyError) return err;
  const e = err as NodeJS.ErrnoException;
  return new LazyError(
    'unexpected',
    e?.message ?? String(err),
    EXIT.unexpected,
    e?.stack ? { stack: e.stack.split('\n').slice(0, 6).join('\n') } : {},
  );
}
