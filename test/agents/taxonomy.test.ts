import t from 'tap';
import {
  FAILURE_CLASSES,
  classOfErrorMessage,
  classOfStatus,
  isoFromEpoch,
  oneLine,
  type FailureClass,
} from '../../lib/agents/adapters/taxonomy.js';

// The failure taxonomy: a closed vocabulary, mapped from structured signals only.
// Reference (lazy-state-machine.md, "The taxonomy"): a classifier that does not recognise
// a failure returns unknown rather than guessing; a wrong fatal_* blocks work that would
// have recovered, the more expensive mistake.

t.test('the closed vocabulary', async (t) => {
  // Difference: the reference keeps Claude's usage limit as transient_overload; lazy has a usage_limit
  // class of its own, which waits for the named reset and costs no retry (see retry.test.ts, usageWait).
  t.same(
    [...FAILURE_CLASSES],
    [
      'fatal_auth',
      'fatal_config',
      'transient_overload',
      'transient_network',
      'transient_unreachable',
      'usage_limit',
      'unknown',
    ],
  );
});

t.test('classOfStatus: HTTP statuses an agent CLI reported in a structured field', async (t) => {
  const rows: [status: number | null | undefined, cls: FailureClass | undefined, pins: string][] = [
    [401, 'fatal_auth', 'unauthorized: a revoked credential never heals'],
    [403, 'fatal_auth', 'forbidden'],
    [429, 'transient_overload', 'rate limited'],
    [529, 'transient_overload', 'overloaded'],
    [500, 'transient_overload', 'server error'],
    [502, 'transient_overload', 'bad gateway'],
    [503, 'transient_overload', 'unavailable'],
    [408, 'transient_network', 'request timeout'],
    [504, 'transient_network', 'gateway timeout'],
    [400, undefined, 'a bad request is not classified here'],
    [404, undefined, 'not found is not classified'],
    [200, undefined, 'success is no failure'],
    [501, undefined, 'not every 5xx is overload'],
    [null, undefined, 'no status'],
    [undefined, undefined, 'no status field'],
  ];
  for (const [status, cls, pins] of rows)
    t.equal(classOfStatus(status), cls, `${status}: ${cls ?? 'unclassified'} (${pins})`);
});

t.test('classOfErrorMessage: socket-level signals in a structured error message', async (t) => {
  const rows: [message: string | undefined, cls: FailureClass | undefined][] = [
    ['connect ECONNREFUSED 127.0.0.1:8080', 'transient_unreachable'],
    ['Connection refused', 'transient_unreachable'],
    ['connectionrefused by proxy', 'transient_unreachable'],
    ['Unable to connect to API', 'transient_unreachable'],
    ['request timed out', 'transient_network'],
    ['Request timeout after 60s', 'transient_network'],
    ['read ETIMEDOUT', 'transient_network'],
    ['socket ECONNRESET', 'transient_network'],
    ['getaddrinfo EAI_AGAIN api.example.com', 'transient_network'],
    ['getaddrinfo ENOTFOUND api.example.com', 'transient_network'],
    ['Name does not resolve', 'transient_network'],
    ['failed to lookup address information', 'transient_network'],
    ['socket hang up', 'transient_network'],
    ['waiting for network', 'transient_network'],
    ['stream disconnected before completion', 'transient_network'],
    ['Invalid API key', undefined],
    ['rate limit', undefined],
    ['', undefined],
    [undefined, undefined],
  ];
  for (const [m, cls] of rows) t.equal(classOfErrorMessage(m), cls, `${JSON.stringify(m)}: ${cls ?? 'unclassified'}`);
  t.equal(
    classOfErrorMessage('connection refused after the request timed out'),
    'transient_unreachable',
    'unreachable is tested first: a refused connection is the stronger signal',
  );
});

t.test('oneLine: a reason fit for a changelog line', async (t) => {
  const rows: [text: string | undefined, expected: string, pins: string][] = [
    ['plain', 'plain', 'one line stays'],
    ['first\nsecond\nlast', 'last', 'the last non-empty line (where an error is)'],
    ['error: boom\n\n   \n', 'error: boom', 'trailing blank lines are skipped'],
    ['  padded  ', 'padded', 'trimmed'],
    ['', 'fallback', 'empty: the fallback'],
    ['\n \n', 'fallback', 'blank: the fallback'],
    [undefined, 'fallback', 'absent: the fallback'],
    ['x'.repeat(300), 'x'.repeat(300), 'exactly 300 characters stay'],
    ['x'.repeat(301), 'x'.repeat(299) + '…', 'longer is cut to 300 with an ellipsis'],
  ];
  for (const [text, expected, pins] of rows) t.equal(oneLine(text, 'fallback'), expected, pins);
});

t.test('isoFromEpoch: a reset time from seconds or milliseconds', async (t) => {
  const rows: [n: unknown, expected: string | undefined, pins: string][] = [
    [1_764_583_200, '2025-12-01T10:00:00.000Z', 'epoch seconds'],
    [1_764_583_200_000, '2025-12-01T10:00:00.000Z', 'epoch milliseconds'],
    [999_999_999_999, new Date(999_999_999_999 * 1000).toISOString(), 'just below 1e12 reads as seconds'],
    [1e12, new Date(1e12).toISOString(), '1e12 and above read as milliseconds'],
    [0, undefined, 'zero'],
    [-5, undefined, 'negative'],
    [Number.NaN, undefined, 'NaN'],
    [Number.POSITIVE_INFINITY, undefined, 'infinity'],
    ['1764583200', undefined, 'a string'],
    [null, undefined, 'null'],
    [1e300, undefined, 'beyond the dates JavaScript can hold'],
  ];
  for (const [n, expected, pins] of rows) t.equal(isoFromEpoch(n), expected, pins);
});
