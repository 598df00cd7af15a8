#!/usr/bin/env node
// Remakes test/fixtures/details-store.bundle: a store written by a release of lazy, so that
// test/store/details-store.test.ts proves every entry that release wrote still reads (issue 29).
// Run with the release to capture built: `npm run build && node --import tsx scripts/details-fixture.mjs`
// (LAZY_BIN=<path to bin/lazy.cjs> drives another build). It drives the CLI in a temp repository
// through many triggers and turn kinds with the fake agent, then bundles refs/lazy/* and the
// task branches, and writes what `lazy show --json` said of each task (details-store.json).
// Each step is printed; a step that fails stops the script.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, testEnv } from '../test/helpers/env.ts';

const LAZY = process.env.LAZY_BIN || join(ROOT, 'bin', 'lazy.cjs');
const OUT = join(ROOT, 'test', 'fixtures', 'details-store.bundle');
const dir = mkdtempSync(join(tmpdir(), 'lazy-details-fixture-'));
const home = join(dir, 'home');
const repo = join(dir, 'repo');
const remote = join(dir, 'remote.git');
mkdirSync(home);
mkdirSync(repo);

const env = testEnv(home, {
  FAKE_STATE: join(home, 'fake-state'),
  FAKE_LOG: join(home, 'fake-log.jsonl'),
  FAKE_SLEEP_MS: '300',
});
delete env.NODE_EXTRA_CA_CERTS;

function run(cmd, args, o = {}) {
  const r = spawnSync(cmd, args, { cwd: repo, env: { ...env, ...o.env }, encoding: 'utf8', input: o.input ?? '' });
  const shown = cmd === 'git' ? ['git', ...args] : ['lazy', ...args.slice(1)];
  const line = `$ ${shown.join(' ')} -> ${r.status}`;
  console.log(line);
  if (r.status !== 0 && !(o.ok ?? [0]).includes(r.status)) {
    console.error(r.stdout, r.stderr);
    throw new Error(`${line} failed`);
  }
  return r.stdout.trim();
}
const git = (...a) => run('git', a);
const lazy = (args, o = {}) => run(process.execPath, [LAZY, ...args], o);
// Supervisors outlive the command that started them (and keep its environment): the agent's
// scenario is read from a file at each launch instead.
const scenarioFile = join(home, 'scenario');
const wrapper = join(home, 'agent.sh');
writeFileSync(
  wrapper,
  `FAKE_SCENARIO=$(cat "${scenarioFile}") exec /bin/sh "${join(ROOT, 'test', 'fixtures', 'fake-agent.sh')}" "$@"\n`,
);
const agent = (scenario, args, o = {}) => {
  writeFileSync(scenarioFile, scenario);
  return lazy(args, o);
};
const create = (goal, ...more) =>
  lazy(['create', goal, '--accept', 'it works', ...more, '--json', '--fields', 'task.id']).match(
    /"id":\s*"([^"]+)"/,
  )[1];
const wait = (id) => lazy(['wait', id], { ok: [0, 1, 2, 3, 4, 5, 6, 7, 8] });

git('init', '-q', '-b', 'main');
git('commit', '-q', '--allow-empty', '-m', 'initial');
spawnSync('git', ['init', '-q', '--bare', remote], { env });
git('remote', 'add', 'origin', remote);
git('push', '-q', 'origin', 'main');
lazy(['init']);
for (const [k, v] of Object.entries({
  'agents.fake.command': `/bin/sh "${wrapper}"`,
  agent: 'fake',
  retry_base_ms: '100',
  stop_grace_ms: '1000',
  crash_window_ms: '10000',
}))
  lazy(['config', 'set', k, v], { ok: [0, 2] });

// Accepted: merging then complete with the squash commit; a review; then reopened and accepted again.
const a = create('accepted task');
agent('succeed', ['start', a]);
wait(a);
lazy(['comment', a, '-m', 'looks fine']);
lazy(['accept', a, '--yes']);
lazy(['reopen', a, '-m', 'one more thing']);
agent('succeed', ['unblock', a, '-m', 'add another file']);
wait(a);
lazy(['accept', a, '--yes'], { ok: [0, 2, 3, 4, 5] });

// Clarify, then the agent's question: blocked on a decision, answered, the next turn succeeds, an ask, rejected.
const q = lazy(['create', 'question task', '--json', '--fields', 'task.id']).match(/"id":\s*"([^"]+)"/)[1];
lazy(['start', q]); // no acceptance criterion: lazy asks for one (clarify)
agent('question', ['answer', q, '-m', 'a file exists']);
wait(q);
agent('succeed', ['answer', q, '-m', 'use the blue one']);
wait(q);
agent('succeed', ['ask', q, '-m', 'why blue?'], { ok: [0, 2, 3, 4] });
wait(q);
lazy(['reject', q, '-m', 'not needed after all']);

// Protected: a protected file, the decision pending; an unblock with feedback.
const p = create('protected task');
agent('protected', ['start', p]);
wait(p);
agent('succeed', ['unblock', p, '-m', 'try again without secrets'], { ok: [0, 2, 3, 4] });
wait(p);

// Stopped by the user while hanging, then queued with a priority, paused, unpaused, unqueued, closed.
const s = create('stopped task');
agent('hang', ['start', s]);
lazy(['stop', s]);
lazy(['queue', s, '--priority', '3']);
lazy(['pause', s]);
lazy(['unpause', s]);
lazy(['unqueue', s]);
lazy(['edit', s, '--goal', 'stopped task, edited', '--tag', 'fixture']);
lazy(['close', s, '-m', 'no longer wanted']);

// A crash (the agent killed mid-turn), and an auth failure that blocks the task.
const c = create('crashed task');
agent('crash', ['start', c]);
wait(c);
const f = create('failing task');
agent('auth', ['start', f]);
wait(f);

// Submitted to the bare remote.
const u = create('submitted task');
agent('succeed', ['start', u]);
wait(u);
lazy(['submit', u, 'origin'], { ok: [0, 2, 3, 4, 5, 6, 7] });

// A subtask accepted into its parent's branch.
const parent = create('parent task');
agent('succeed', ['start', parent]);
wait(parent);
const child = create('child task', '--parent', parent);
agent('succeed', ['start', child]);
wait(child);
lazy(['accept', child, '--yes'], { ok: [0, 2, 3, 4, 5] });

lazy(['push', 'origin'], { ok: [0, 7] });
const refs = git('for-each-ref', '--format=%(refname)', 'refs/lazy/', 'refs/heads/').split('\n').filter(Boolean);
rmSync(OUT, { force: true });
git('bundle', 'create', OUT, ...refs);
console.log(`wrote ${OUT} (${statSync(OUT).size} bytes, ${refs.length} refs) from ${dir}`);
// What that release showed of each task: the test reads the bundle with the current code and compares.
const facts = {};
for (const id of [a, q, p, s, c, f, u, parent, child]) {
  const task = JSON.parse(lazy(['show', id, '--json']));
  facts[id] = {
    status: task.status,
    reviewed_head: task.reviewed_head,
    submission: task.submission,
    changelog: task.changelog.map((e) => ({ status: e.status, trigger: e.trigger, details: e.details })),
    turns: task.turns.map((e) => ({ role: e.role, kind: e.kind, details: e.details })),
  };
}
writeFileSync(OUT.replace(/\.bundle$/, '.json'), JSON.stringify(facts, null, 1) + '\n');
rmSync(dir, { recursive: true, force: true });
