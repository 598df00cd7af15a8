// The closed vocabulary of agent failures. Each adapter maps its own structured signals
// (result and error fields, HTTP status, error type) onto it. Invariant: prose in the
// output never makes a class: an agent that prints "401" or "billing" while running tests
// is not an auth failure. A wrong fatal_* blocks work that would have recovered, so
// anything unrecognised is unknown (retried), never a guess.

export const FAILURE_CLASSES = [
  'fatal_auth',
  'fatal_config',
  'transient_overload',
  'transient_network',
  'transient_unreachable',
  'usage_limit',
  'unknown',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** A usage_limit may name when the window reopens (ISO 8601); without it the supervisor rechecks. */
export interface Classified {
  cls: FailureClass;
  reason: string;
  resetAt?: string;
}

/** The class of an HTTP status an agent CLI reported in a structured field. */
export function classOfStatus(status: number | null | undefined): FailureClass | undefined {
  if (status === 401 || status === 403) return 'fatal_auth';
  if (status === 429 || status === 529 || status === 500 || status === 502 || status === 503)
    return 'transient_overload';
  if (status === 408 || status === 504) return 'transient_network';
  return undefined;
}

const SOCKET: [FailureClass, RegExp][] = [
  ['transient_unreachable', /econnrefused|connection ?refused|unable to connect/i],
  [
    'transient_network',
    /timed? ?out|etimedout|econnreset|eai_again|enotfound|name does not resolve|lookup address|socket hang up|waiting for network|stream disconnected/i,
  ],
];

/**
 * Socket-level signals in an error message the CLI itself emitted in a structured field
 * (an api_retry line, a codex error event): never applied to the output tail.
 */
export function classOfErrorMessage(message: string | undefined): FailureClass | undefined {
  if (!message) return undefined;
  for (const [cls, re] of SOCKET) if (re.test(message)) return cls;
  return undefined;
}

/** A reason fit for a changelog line: one line, at most 300 characters. */
export function oneLine(text: string | undefined, fallback: string): string {
  const line =
    (text ?? '')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? fallback;
  return line.length > 300 ? line.slice(0, 299) + '…' : line;
}

/** An ISO time from epoch seconds (or milliseconds), or undefined for anything else. */
export function isoFromEpoch(n: unknown): string | undefined {
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return undefined;
  const ms = n < 1e12 ? n * 1000 : n;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
