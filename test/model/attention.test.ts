import t from 'tap';
import {
  CLARIFY_QUESTION,
  MAX_CONSECUTIVE_INTERRUPTIONS,
  heldCrash,
  pendingQuestion,
  type AttentionKind,
} from '../../lib/model/attention.js';
import type { StatusEntry, TurnEntry } from '../../lib/model/docs.js';
import type { ChangeView } from '../../lib/model/fold.js';
import type { Status } from '../../lib/model/status.js';
import type { Trigger } from '../../lib/model/table.js';
import { turn, view, walk } from '../helpers/docs.js';

// Attention is what a person must do about a task, derived from its history. Reference
// (firstmate, "Interruption discipline"): only tasks that really wait for a person carry
// one; queued work, running turns and automatic recovery never do.

const crash: [Status, Trigger] = ['interrupted', 'turn_crashed'];
const auto: [Status, Trigger] = ['working', 'auto_resume'];
const S: [Status, Trigger] = ['working', 'start'];

function withReason(log: StatusEntry[], reason: string, details?: StatusEntry['details']): StatusEntry[] {
  const last = log.at(-1)!;
  last.reason = reason;
  if (details) last.details = details;
  return log;
}

t.test('attentionOf: one row per status and history', async (t) => {
  const rows: [
    pins: string,
    log: StatusEntry[],
    turns: TurnEntry[],
    kind: AttentionKind | null,
    reason?: string | RegExp,
  ][] = [
    ['backlog needs nobody', walk(), [], null],
    ['a running turn needs nobody', walk(S), [], null],
    [
      'a pairing session needs nobody but its person',
      walk(S, ['blocked', 'turn_complete'], ['pairing', 'pair']),
      [],
      null,
    ],
    ['a merge in flight needs nobody', walk(S, ['blocked', 'turn_complete'], ['merging', 'accept']), [], null],
    [
      'complete needs nobody',
      walk(S, ['blocked', 'turn_complete'], ['merging', 'accept'], ['complete', 'accept']),
      [],
      null,
    ],
    ['abandoned needs nobody', walk(['abandoned', 'close']), [], null],
    [
      'a failed turn asks for a look at the failure (first line of its reason)',
      withReason(walk(S, ['blocked', 'turn_failed']), 'fatal_auth: not logged in\nmore detail'),
      [],
      'failure',
      'fatal_auth: not logged in',
    ],
    [
      'a clarify park asks for an acceptance criterion',
      walk(S, ['blocked', 'clarify']),
      [],
      'decision',
      CLARIFY_QUESTION,
    ],
    [
      "the agent's open question is a decision",
      walk(S, ['blocked', 'turn_complete']),
      [turn(3, 'agent', 'question', { content: 'Which database?\nDetails follow.' })],
      'decision',
      'Which database?',
    ],
    [
      "the agent's result is a review",
      walk(S, ['blocked', 'turn_complete']),
      [turn(3, 'agent', 'result', { content: 'Done: added the cache.' })],
      'review',
      'Done: added the cache.',
    ],
    [
      'a review with no agent turn names the last change',
      withReason(walk(S, ['blocked', 'turn_complete']), 'parked'),
      [],
      'review',
      'parked',
    ],
    [
      'an answered question leaves a review',
      walk(S, ['blocked', 'turn_complete'], ['working', 'answer'], ['blocked', 'turn_complete']),
      [turn(3, 'agent', 'question'), turn(5, 'human', 'answer'), turn(6, 'agent', 'result', { content: 'ok' })],
      'review',
      'ok',
    ],
    [
      'a reopen asks about its reason, not the accepted review, until the next turn',
      withReason(
        walk(S, ['blocked', 'turn_complete'], ['merging', 'accept'], ['complete', 'accept'], ['blocked', 'reopen']),
        'the fix regressed\nsteps to reproduce',
      ),
      [turn(3, 'agent', 'result', { content: 'Done: added the cache.' })],
      'review',
      'reopened: the fix regressed',
    ],
    [
      'a pairing session after a stop is the latest work: its end is the review',
      walk(S, ['interrupted', 'stop'], ['pairing', 'pair'], ['blocked', 'pair_end']),
      [
        turn(3, 'agent', 'error', { content: 'interrupted: stopped by the user' }),
        turn(5, 'human', 'pair', { content: 'Pairing session ended (exit 0): 1 commit(s) made.' }),
      ],
      'review',
      'Pairing session ended (exit 0): 1 commit(s) made.',
    ],
    [
      'conflict asks for an approve or revert decision',
      walk(S, ['conflict', 'turn_complete']),
      [],
      'conflict',
      /approve or revert/,
    ],
    ['an ordinary crash resumes by itself: no attention', walk(S, crash), [], null],
    [
      'a stop asks the person who stopped it',
      walk(S, ['interrupted', 'stop']),
      [],
      'interrupted',
      'stopped by the user',
    ],
    [
      'the circuit breaker asks for a person (reference: 3 crashes)',
      walk(S, crash, auto, crash, auto, crash),
      [],
      'interrupted',
      'circuit breaker: 3 crashes in a row',
    ],
    ['two crashes are still automatic recovery', walk(S, crash, auto, crash), [], null],
    [
      'a crash during merge-and-fix is held (reference: not auto-resumed)',
      withReason(walk(S, crash), 'x', { upstream_conflict: ['a.ts'] }),
      [],
      'interrupted',
      /crashed while fixing a conflicting upstream merge \(a\.ts\)/,
    ],
  ];
  for (const [pins, changelog, turns, kind, reason] of rows) {
    const a = view({ changelog, turns }).attention;
    t.equal(a?.kind ?? null, kind, `${pins}: ${kind ?? 'none'}`);
    if (reason !== undefined) t.match(a?.reason, reason, `${pins}: reason`);
    if (a) t.equal(a.since, changelog.at(-1)!.timestamp, `${pins}: since the last change`);
  }
  t.equal(MAX_CONSECUTIVE_INTERRUPTIONS, 3, 'reference: MAX_CONSECUTIVE_INTERRUPTIONS = 3');
});

t.test('attentionOf: an ask is status-neutral, so attention comes from the work around it', async (t) => {
  const log = walk(S, ['blocked', 'turn_failed'], ['working', 'ask'], ['blocked', 'turn_complete']);
  log[2]!.reason = 'transient_overload: retry budget spent';
  log[3]!.run = 'runask01';
  log[4]!.run = 'runask01';
  const turns = [
    turn(4, 'human', 'question', { run: 'runask01', content: 'why did it fail?' }),
    turn(5, 'agent', 'result', { run: 'runask01', content: 'because' }),
  ];
  const a = view({ changelog: log, turns }).attention;
  t.equal(a?.kind, 'failure', 'the failure before the ask still needs a look');
  t.equal(a?.reason, 'transient_overload: retry budget spent');
  t.equal(a?.since, log[2]!.timestamp, 'since the failure, not the ask');
  // Without the ask marker (no human question turn), the same turns are ordinary work.
  const b = view({ changelog: log, turns: [turn(5, 'agent', 'result', { run: 'runask01', content: 'because' })] });
  t.equal(b.attention?.kind, 'review', 'a work turn on the same run is reviewed');
});

t.test('attentionOf: reasons are one line of at most 200 characters', async (t) => {
  const long = 'x'.repeat(300);
  const a = view({ changelog: withReason(walk(S, ['blocked', 'turn_failed']), `  ${long}\nsecond`) }).attention;
  t.equal(a?.reason, 'x'.repeat(200));
});

t.test('heldCrash: why a crash waits for a person', async (t) => {
  const rows: [string, Pick<ChangeView, 'trigger' | 'details'>, string | RegExp | null][] = [
    ['an ordinary crash is not held', { trigger: 'turn_crashed', details: {} }, null],
    ['a crash without details is not held', { trigger: 'turn_crashed', details: null }, null],
    ['only a crash is ever held', { trigger: 'stop', details: { upstream_conflict: ['a'] } }, null],
    [
      'lazy doctor ended a lost turn',
      { trigger: 'turn_crashed', details: { held: 'the run was lost' } },
      'the run was lost',
    ],
    [
      'merge-and-fix names the conflicting files',
      { trigger: 'turn_crashed', details: { upstream_conflict: ['a.ts', 'b.ts'] } },
      /^crashed while fixing a conflicting upstream merge \(a\.ts, b\.ts\): not resumed automatically/,
    ],
    [
      'merge-and-fix with no file named',
      { trigger: 'turn_crashed', details: { upstream_conflict: [] } },
      /^crashed while fixing a conflicting upstream merge: not resumed/,
    ],
    [
      'a malformed upstream_conflict is not held',
      { trigger: 'turn_crashed', details: { upstream_conflict: 'a.ts' } },
      null,
    ],
  ];
  for (const [pins, last, expected] of rows) {
    const got = heldCrash(last);
    if (expected === null) t.equal(got, null, pins);
    else t.match(got, expected, pins);
  }
});

t.test('pendingQuestion: the latest agent question nothing has answered', async (t) => {
  const tv = (turns: TurnEntry[]) => view({ turns }).turns;
  const rows: [string, TurnEntry[], string | undefined][] = [
    ['no turns', [], undefined],
    ['the latest agent turn asks', [turn(2, 'agent', 'question')], 't0000002'],
    ['a comment does not answer it', [turn(2, 'agent', 'question'), turn(3, 'human', 'comment')], 't0000002'],
    ['an answer does', [turn(2, 'agent', 'question'), turn(3, 'human', 'answer')], undefined],
    ['feedback does', [turn(2, 'agent', 'question'), turn(3, 'human', 'feedback')], undefined],
    ['a later agent result supersedes it', [turn(2, 'agent', 'question'), turn(3, 'agent', 'result')], undefined],
    ['a later question is the one pending', [turn(2, 'agent', 'result'), turn(3, 'agent', 'question')], 't0000003'],
  ];
  for (const [pins, turns, id] of rows) t.equal(pendingQuestion(tv(turns))?.id, id, pins);
});
