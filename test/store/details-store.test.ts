import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandbox, gitSync, ROOT } from '../helpers/env.js';
import { Store } from '../../lib/store/store.js';
import { openRepo } from '../../lib/core/repo.js';
import { withEnv } from '../../lib/core/env.js';
import { checkDoc } from '../../lib/store/validate.js';
import {
  acceptedCommit,
  changeDetails,
  interruptOf,
  lastAccept,
  reviewOf,
  setAsideNote,
  turnDetails,
} from '../../lib/model/details.js';
import type { Json } from '../../lib/core/json.js';

// A store written by an earlier release (test/fixtures/details-store.bundle, made by
// scripts/details-fixture.mjs, with what that release's `lazy show --json` said in
// details-store.json) reads with the current code: every entry passes its schema, and the
// views keep the facts (statuses, every entry's details, the accepted commit, reviews).

type Facts = Record<
  string,
  {
    status: string;
    reviewed_head: string | null;
    submission: Json;
    changelog: { status: string; trigger: string; details: { [k: string]: Json } | null }[];
    turns: { role: string; kind: string; details: { [k: string]: Json } | null }[];
  }
>;
const FIXTURE = join(ROOT, 'test', 'fixtures', 'details-store.bundle');
const facts = JSON.parse(readFileSync(FIXTURE.replace(/\.bundle$/, '.json'), 'utf8')) as Facts;

t.test('every task of a store written by an earlier release reads, with its facts', async (t) => {
  const sb = sandbox('lazy-details');
  t.teardown(sb.cleanup);
  gitSync(sb.dir, sb.env, ['fetch', '-q', FIXTURE, 'refs/lazy/*:refs/lazy/*', 'refs/heads/lazy/*:refs/heads/lazy/*']);
  const ids = gitSync(sb.dir, sb.env, ['for-each-ref', '--format=%(refname:lstrip=3)', 'refs/lazy/tasks/'])
    .split('\n')
    .filter(Boolean);
  t.same(ids.sort(), Object.keys(facts).sort(), 'every task of the fixture is there');
  const triggers = new Set<string>();
  const kinds = new Set<string>();
  await withEnv(sb.env, async () => {
    const store = new Store(await openRepo(sb.dir));
    t.teardown(() => store.close());
    for (const id of ids) {
      const v = await store.view(id);
      const was = facts[id]!;
      t.equal(v.status, was.status, `${id}: status`);
      t.same(
        v.changelog.map((c) => ({ status: c.status, trigger: c.trigger, details: c.details })),
        was.changelog,
        `${id}: every status change keeps its details`,
      );
      t.same(
        v.turns.map((x) => ({ role: x.role, kind: x.kind, details: x.details })),
        was.turns,
        `${id}: every turn keeps its details`,
      );
      t.equal(v.reviewed_head, was.reviewed_head, `${id}: the reviewed head`);
      t.same(v.submission, was.submission, `${id}: the submission`);
      const landed = was.changelog.filter((c) => c.status === 'complete').at(-1)?.details?.commit ?? null;
      t.equal(acceptedCommit(v), landed, `${id}: the accepted commit`);
      if (v.status === 'complete') t.match(lastAccept(v), { commit: /^[0-9a-f]{40}$/ }, `${id}: an accept landed`);
      for (const c of v.changelog) {
        triggers.add(c.trigger);
        changeDetails(c);
        interruptOf(c);
      }
      for (const x of v.turns) {
        kinds.add(x.kind);
        turnDetails(x);
        setAsideNote(x);
        if (x.role === 'agent' && x.kind === 'result') t.ok(reviewOf(x), `${id}: a result turn has its review`);
      }
    }
  });
  // The fixture exercises the triggers and kinds that write details (a remade fixture must too).
  for (const x of [
    'start',
    'answer',
    'unblock',
    'accept',
    'submit',
    'queue',
    'pause',
    'stop',
    'turn_crashed',
    'turn_failed',
  ])
    t.ok(triggers.has(x), `the fixture has a ${x} entry`);
  for (const x of ['prompt', 'result', 'question', 'error', 'answer', 'feedback', 'comment', 'submission'])
    t.ok(kinds.has(x), `the fixture has a ${x} turn`);
});

t.test('details: known keys are typed by the trigger or kind, unknown keys are tolerated', async (t) => {
  const where = { ref: 'refs/lazy/tasks/abcd1234', file: 'changelog/x.yaml' };
  const change = (trigger: string, to: string, details: object) => ({
    id: 'abcd1234',
    clock: 3,
    timestamp: '2026-01-01T00:00:00.000Z',
    actor: 'human',
    from: 'blocked',
    to,
    trigger,
    reason: 'r',
    details,
  });
  const ok = (doc: object) => t.doesNotThrow(() => checkDoc('statusChange', doc, where));
  const bad = (doc: object) =>
    t.throws(() => checkDoc('statusChange', doc, where), { code: 'invalid_data', message: /at \/details\// });
  ok(change('accept', 'complete', { target: 'main', commit: 'a'.repeat(40), from_a_newer_release: [1] }));
  bad(change('accept', 'complete', { target: 'main', commit: 42 }));
  bad(change('queue', 'blocked', { priority: 'high' }));
  ok(change('queue', 'blocked', { priority: 2 }));
  ok(change('reopen', 'blocked', { anything: 'goes' }));
  const turn = (kind: string, details: object) => ({
    id: 'abcd1234',
    clock: 3,
    timestamp: '2026-01-01T00:00:00.000Z',
    actor: 'agent',
    role: 'agent',
    kind,
    content: 'c',
    details,
  });
  t.doesNotThrow(() => checkDoc('turn', turn('result', { summary: 's', newer: true }), where));
  t.throws(() => checkDoc('turn', turn('result', { review: { head: 7 } }), where), {
    message: /at \/details\/review\/head/,
  });
  t.throws(() => checkDoc('turn', turn('submission', { remote: ['origin'] }), where), {
    message: /at \/details\/remote/,
  });
});
