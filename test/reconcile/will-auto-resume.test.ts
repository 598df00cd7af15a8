import t from 'tap';
import { willAutoResume } from '../../lib/reconcile/reconcile.js';
import type { StatusEntry } from '../../lib/model/docs.js';
import type { Status } from '../../lib/model/status.js';
import type { Trigger } from '../../lib/model/table.js';
import { decision, docs, view as bare, violation, walk } from '../helpers/docs.js';

/** A task with a criterion: nothing runs an agent on one without (issue 28). */
const view = (more: Parameters<typeof bare>[0] = {}) =>
  bare({ task: { ...docs().task, acceptance: ['done'] }, ...more });

// Whether the next reconcile resumes a crashed turn by itself. Reference
// (lazy-state-machine.md, crash/resume lifecycle): the circuit breaker stops after 3
// consecutive crashes; a crash during merge-and-fix is not auto-resumed; auto-resume
// skips a task with pending file-permission violations. Lazy adds: a stop is no crash,
// and a crash recorded by another machine is that machine's to resume.

const S: [Status, Trigger] = ['working', 'start'];
const crash: [Status, Trigger] = ['interrupted', 'turn_crashed'];
const auto: [Status, Trigger] = ['working', 'auto_resume'];
const HERE = 'here.example';

const onHost = (log: StatusEntry[], host: string | undefined, details?: StatusEntry['details']) => {
  const last = log.at(-1)!;
  if (host) last.host = host;
  if (details) last.details = details;
  return log;
};

const HERE_CLONE = 'cloneofhere';
const inClone = (log: StatusEntry[], host: string, clone: string) => {
  Object.assign(log.at(-1)!, { host, clone });
  return log;
};

t.test('willAutoResume: one row per reason to resume or hold', async (t) => {
  const rows: [pins: string, v: ReturnType<typeof view>, expected: boolean][] = [
    ['a crash on this machine resumes', view({ changelog: onHost(walk(S, crash), HERE) }), true],
    ['a crash with no host recorded resumes', view({ changelog: walk(S, crash) }), true],
    ['a task without a criterion is not resumed', bare({ changelog: onHost(walk(S, crash), HERE) }), false],
    ["a crash on another machine is that machine's", view({ changelog: onHost(walk(S, crash), 'elsewhere') }), false],
    [
      "a crash in another clone on this machine is that clone's (issue 27)",
      view({ changelog: inClone(walk(S, crash), HERE, 'cloneofthere') }),
      false,
    ],
    [
      'a crash in this clone under an old host name (a recreated container) resumes here',
      view({ changelog: inClone(walk(S, crash), 'old-name', HERE_CLONE) }),
      true,
    ],
    ['a stop is held for the person who stopped it', view({ changelog: walk(S, ['interrupted', 'stop']) }), false],
    ['a working task is not interrupted', view({ changelog: walk(S) }), false],
    ['a blocked task is not interrupted', view({ changelog: walk(S, ['blocked', 'turn_complete']) }), false],
    ['two crashes in a row still resume', view({ changelog: onHost(walk(S, crash, auto, crash), HERE) }), true],
    [
      'the circuit breaker holds the third crash in a row',
      view({ changelog: onHost(walk(S, crash, auto, crash, auto, crash), HERE) }),
      false,
    ],
    [
      'a resume by hand resets the breaker',
      view({ changelog: onHost(walk(S, crash, auto, crash, ['working', 'resume'], crash), HERE) }),
      true,
    ],
    [
      'pending protected files are held for a decision',
      view({ changelog: onHost(walk(S, crash), HERE), violations: [violation(4, 'a.lock')] }),
      false,
    ],
    [
      'decided protected files hold nothing',
      view({
        changelog: onHost(walk(S, crash), HERE),
        violations: [violation(4, 'a.lock')],
        decisions: [decision(5, 'a.lock', 'approve')],
      }),
      true,
    ],
    [
      'a crash during merge-and-fix is held',
      view({ changelog: onHost(walk(S, crash), HERE, { upstream_conflict: ['a.ts'] }) }),
      false,
    ],
    [
      'a turn lazy doctor ended is held',
      view({ changelog: onHost(walk(S, crash), HERE, { held: 'its run was lost' }) }),
      false,
    ],
  ];
  for (const [pins, v, expected] of rows) t.equal(willAutoResume(v, { host: HERE, clone: HERE_CLONE }), expected, pins);
});
