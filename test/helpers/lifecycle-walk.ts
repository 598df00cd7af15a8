import { type Test } from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACTIONS, type Action } from '../../lib/model/table.js';
import { ACCEPT_STEPS } from '../../lib/ops/accept/index.js';
import { randomId } from '../../lib/core/ids.js';
import { eventually, shellScript, type AgentBox } from './agent.js';
import { gitSync, lazy, lazyJson, type Run } from './env.js';
import { withId } from './plant.js';
import { systemClock } from '../../lib/core/clock.js';
import { withEnv } from '../../lib/core/env.js';
import { ObjectReader, parseCommit, parseTree, type TreeEntry } from '../../lib/store/objects.js';
import { ObjectWriter, type Entries } from '../../lib/store/writer.js';

// The available-actions walk (test/model/actions-*.test.ts): states built by real commands, actions on copies.

export type State =
  | 'backlog'
  | 'queued'
  | 'paused'
  | 'working'
  | 'blocked'
  | 'decision'
  | 'clarify'
  | 'blocked+violations'
  | 'conflict'
  | 'submitted'
  | 'interrupted'
  | 'interrupted+violations'
  | 'interrupted+paused'
  | 'pairing'
  | 'merging'
  | 'complete'
  | 'abandoned';

/** What each state lists, in ACTIONS order. */
export const EXPECT: Record<State, Action[]> = {
  // queue on a task already queued re-queues it (a new priority); unqueue, pause and unpause follow the schedule.
  backlog: ['start', 'queue', 'close', 'comment', 'edit'],
  queued: ['start', 'queue', 'unqueue', 'pause', 'close', 'comment', 'edit'],
  paused: ['start', 'queue', 'unqueue', 'unpause', 'close', 'comment', 'edit'],
  // unblock on a working task queues the feedback for the turn after this one.
  working: ['unblock', 'stop', 'comment', 'edit'],
  blocked: ['unblock', 'ask', 'repair', 'pair', 'accept', 'submit', 'reject', 'close', 'comment', 'edit', 'run'],
  // A pending decision is answered (answer, or unblock's feedback) or the task closed: nothing accepts or submits it.
  decision: ['unblock', 'answer', 'ask', 'repair', 'pair', 'reject', 'close', 'comment', 'edit', 'run'],
  // start without a criterion: nothing runs an agent (ask), pairs or accepts until its answer gives one.
  clarify: ['unblock', 'answer', 'reject', 'close', 'comment', 'edit'],
  // A failed turn leaves no review: accept waits for a turn that does.
  'blocked+violations': ['unblock', 'ask', 'repair', 'pair', 'reject', 'close', 'comment', 'edit', 'run'],
  conflict: ['unblock', 'ask', 'pair', 'accept', 'reject', 'close', 'comment', 'edit', 'run'],
  // Handed to a forge: a new turn, a local accept, the retry of submit, or giving up.
  submitted: ['unblock', 'accept', 'submit', 'reject', 'close', 'comment', 'edit', 'run'],
  interrupted: ['queue', 'pause', 'unblock', 'resume', 'repair', 'pair', 'reject', 'close', 'comment', 'edit', 'run'],
  'interrupted+violations': ['pause', 'unblock', 'repair', 'pair', 'reject', 'close', 'comment', 'edit', 'run'],
  'interrupted+paused': [
    'queue',
    'unpause',
    'unblock',
    'resume',
    'repair',
    'pair',
    'reject',
    'close',
    'comment',
    'edit',
    'run',
  ],
  pairing: ['comment', 'edit', 'run'],
  merging: ['accept'],
  // A follow-up: one more round of work on the task branch (kept by this reject; the accept deleted it).
  // The accept deleted lazy/<id>; a follow-up or run makes it again at the head its review recorded.
  complete: ['follow_up', 'reopen', 'run'],
  // A reject keeps the branch here (the walk puts it back): a follow-up and a command run on it.
  abandoned: ['follow_up', 'reopen', 'run'],
};

export const STATUS: Record<State, string> = {
  backlog: 'backlog',
  queued: 'backlog',
  paused: 'backlog',
  working: 'working',
  blocked: 'blocked',
  decision: 'blocked',
  clarify: 'blocked',
  'blocked+violations': 'blocked',
  conflict: 'conflict',
  submitted: 'submitted',
  interrupted: 'interrupted',
  'interrupted+violations': 'interrupted',
  'interrupted+paused': 'interrupted',
  pairing: 'pairing',
  merging: 'merging',
  complete: 'complete',
  abandoned: 'abandoned',
};

/** Valid arguments for each action; `pending` adds the decision every pending protected file needs. */
const ARGS: Record<Action, (id: string, pending: boolean) => string[]> = {
  start: (id) => ['start', id],
  queue: (id) => ['queue', id, '--priority', '1'],
  unqueue: (id) => ['unqueue', id],
  pause: (id) => ['pause', id],
  unpause: (id) => ['unpause', id],
  unblock: (id, p) => ['unblock', id, '-m', 'carry on', ...(p ? ['--approve-all'] : [])],
  answer: (id) => ['answer', id, '-m', 'approach A'],
  resume: (id) => ['resume', id],
  ask: (id) => ['ask', id, '-m', 'what did you change?', '--timeout', '60'],
  follow_up: (id) => ['follow-up', id, '-m', 'one more thing'],
  repair: (id) => ['repair', id, '-m', 'fix the worktree'],
  stop: (id) => ['stop', id],
  pair: (id) => ['pair', id],
  accept: (id, p) => ['accept', id, '--yes', ...(p ? ['--approve-all'] : [])],
  submit: (id) => ['submit', id],
  reject: (id) => ['reject', id, '-m', 'not this way'],
  close: (id) => ['close', id, '-m', 'not needed'],
  reopen: (id) => ['reopen', id, '-m', 'still broken'],
  comment: (id) => ['comment', id, '-m', 'a note'],
  edit: (id) => ['edit', id, '--goal', 'a sharper goal'],
  // No `--`: the walk puts --json last, which after `--` would be the command's.
  run: (id) => ['run', id, 'true'],
};
const LAUNCHES = new Set<Action>(['start', 'unblock', 'answer', 'resume', 'follow_up', 'repair']);

export interface Env {
  box: AgentBox;
  run(args: string[], extra?: NodeJS.ProcessEnv): Promise<Run>;
  show(id: string): Promise<any>;
  git(args: string[], input?: string): string;
  built: Map<State, Promise<string>>;
}

/** At most this many commands at once (a wait holds one for a whole turn): the states are walked concurrently on a small machine. */
const SLOTS = 8;

/** The bare remote submit pushes to, as a forge's would be. */
function withRemote(box: AgentBox): void {
  const remote = join(box.sb.home, 'forge.git');
  gitSync(box.sb.dir, box.sb.env, ['init', '-q', '--bare', remote]);
  gitSync(box.sb.dir, box.sb.env, ['remote', 'add', 'origin', remote]);
}

export function env(box: AgentBox): Env {
  withRemote(box);
  const base = {
    FAKE_SCENARIO: 'succeed',
    SHELL: '/bin/true',
    FAKE_STATE: join(box.sb.home, 'fake-state'),
    FAKE_LOG: join(box.sb.home, 'fake-log.jsonl'),
  };
  let busy = 0;
  const waiting: (() => void)[] = [];
  const slot = async <T>(f: () => Promise<T>): Promise<T> => {
    if (busy >= SLOTS) await new Promise<void>((r) => waiting.push(r));
    busy++;
    try {
      return await f();
    } finally {
      busy--;
      waiting.shift()?.();
    }
  };
  const o = (extra: NodeJS.ProcessEnv) => ({ cwd: box.sb.dir, env: { ...box.sb.env, ...base, ...extra } });
  return {
    box,
    run: (args, extra = {}) => slot(() => lazy([...args, '--json'], o(extra))),
    show: async (id) => (await slot(() => lazyJson(['show', id], o({})))).value,
    git: (args, input) => gitSync(box.sb.dir, box.sb.env, args, input),
    built: new Map(),
  };
}

export async function ok(e: Env, args: string[], extra: NodeJS.ProcessEnv = {}): Promise<any> {
  const r = await e.run(args, extra);
  if (r.code !== 0) throw new Error(`lazy ${args.join(' ')} exited ${r.code}: ${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function create(e: Env, criterion = true): Promise<string> {
  return (await ok(e, ['create', 'walk the lifecycle', ...(criterion ? ['--accept', 'done'] : [])])).task.id;
}

export async function turn(e: Env, id: string, action: string[], scenario: string): Promise<void> {
  await ok(e, action, { FAKE_SCENARIO: scenario });
  await e.run(['wait', id, '--timeout', '90']);
}

export async function hanging(e: Env, scenario = 'hang'): Promise<string> {
  const id = await create(e);
  await ok(e, ['start', id], { FAKE_SCENARIO: scenario });
  await eventually(async () => (await e.show(id)).status === 'working', 30_000, 'working');
  return id;
}

/** Builds each resting state with real commands. */
export const BUILD: Partial<Record<State, (e: Env) => Promise<string>>> = {
  backlog: (e) => create(e),
  queued: async (e) => {
    const id = await create(e);
    await ok(e, ['queue', id, '--priority', '3']);
    return id;
  },
  paused: async (e) => {
    const id = await copy(e, await built(e, 'queued'));
    await ok(e, ['pause', id]);
    return id;
  },
  'interrupted+paused': async (e) => {
    const id = await copy(e, await built(e, 'interrupted'));
    await ok(e, ['pause', id]);
    return id;
  },
  blocked: async (e) => {
    const id = await create(e);
    await turn(e, id, ['start', id], 'succeed');
    return id;
  },
  decision: async (e) => {
    const id = await create(e);
    await turn(e, id, ['start', id], 'question');
    return id;
  },
  clarify: async (e) => {
    const id = await create(e, false);
    await ok(e, ['start', id]);
    return id;
  },
  'blocked+violations': async (e) => {
    const id = await create(e);
    await turn(e, id, ['start', id], 'protected-auth');
    return id;
  },
  conflict: async (e) => {
    const id = await create(e);
    await turn(e, id, ['start', id], 'protected');
    return id;
  },
  interrupted: async (e) => {
    const id = await hanging(e);
    const run = (await e.show(id)).current_run;
    await ok(e, ['stop', id]);
    // The stopped run's turn is recorded after stop returns (by its supervisor, or by a reconcile if the stop
    // came before the supervisor started): the state is built once that commit is there.
    await eventually(
      async () => (await e.show(id)).turns.some((x: any) => x.role === 'agent' && x.run === run),
      30_000,
      'the stopped turn',
    );
    return id;
  },
  'interrupted+violations': async (e) => {
    // No single clone reaches this: a stopped ask goes back to conflict, and leaving conflict
    // decides every file. A pull that merges a conflict's violations into an interrupted
    // history does, so the state is planted the way that merge writes it: the interrupted
    // task's tree plus the violation entries a protected-file turn recorded.
    const donor = await built(e, 'conflict');
    const id = await copy(e, await built(e, 'interrupted'));
    const ref = `refs/lazy/tasks/${id}`;
    const entries = e.git(['ls-tree', '-r', `refs/lazy/tasks/${donor}`, 'violations/']).trim();
    const index = join(e.box.sb.home, `plant-${id}.index`);
    const env = { GIT_INDEX_FILE: index };
    gitSync(e.box.sb.dir, { ...e.box.sb.env, ...env }, ['read-tree', ref]);
    gitSync(e.box.sb.dir, { ...e.box.sb.env, ...env }, ['update-index', '--index-info'], entries + '\n');
    const tree = gitSync(e.box.sb.dir, { ...e.box.sb.env, ...env }, ['write-tree']).trim();
    const tip = tipOf(e, id);
    const commit = e.git(['commit-tree', tree, '-p', tip, '-m', 'planted: violations merged in'], '').trim();
    e.git(['update-ref', ref, commit, tip]);
    return id;
  },
  submitted: async (e) => {
    const id = await copy(e, await built(e, 'blocked'));
    await ok(e, ['submit', id]);
    return id;
  },
  complete: async (e) => {
    const id = await copy(e, await built(e, 'blocked'));
    await ok(e, ['accept', id, '--yes']);
    return id;
  },
  abandoned: async (e) => {
    const id = await copy(e, await built(e, 'blocked'));
    const head = e.git(['rev-parse', `refs/heads/lazy/${id}`]).trim();
    await ok(e, ['reject', id, '-m', 'no']);
    // A reject keeps a branch whose work is merged nowhere, but deletes one whose patch an accept of another copy
    // already landed (the states are built concurrently): the branch is put back, so the state is always the same.
    e.git(['branch', '-f', `lazy/${id}`, head]);
    return id;
  },
};

const ALL = Object.keys(BUILD) as State[];
/** The resting states in two halves, one per test file so that neither runs long; together, every one. */
export const RESTING: [State[], State[]] = [ALL.slice(0, 8), ALL.slice(8)];

/**
 * Each state is built once per sandbox (a refusal writes nothing, so the task stays as built);
 * states that follow from one (complete, abandoned, the planted one) start from a copy of it.
 */
export function built(e: Env, state: State): Promise<string> {
  let id = e.built.get(state);
  if (!id) e.built.set(state, (id = BUILD[state]!(e)));
  return id;
}

/**
 * A byte copy of the task under a new id (only task.yaml names the id), with a copy of its branch: read through one
 * cat-file and written in this process, so a copy costs two git processes (this process is large: each fork of it
 * costs more than the git it starts).
 */
export async function copy(e: Env, id: string): Promise<string> {
  const to = 'w' + randomId(7);
  const { dir, env } = e.box.sb;
  const reader = new ObjectReader(dir);
  let root: TreeEntry[];
  let yaml: string;
  let branch: string | null;
  try {
    const [tip, head] = await withEnv(env, () =>
      reader.resolveMany([`refs/lazy/tasks/${id}`, `refs/heads/lazy/${id}`]),
    );
    branch = head ?? null;
    root = parseTree((await reader.read(parseCommit((await reader.read(tip!))!.data).tree))!.data);
    yaml = (await reader.read(root.find((x) => x.name === 'task.yaml')!.oid))!.data.toString('utf8');
  } finally {
    reader.close();
  }
  const w = new ObjectWriter(join(dir, '.git'));
  const entries: Entries = new Map(root.map((x) => [x.name, x.mode === '40000' ? { tree: x.oid } : { blob: x.oid }]));
  entries.set('task.yaml', { blob: await w.blob(withId(yaml, to)) });
  const author = {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    timestamp: Math.floor(Date.now() / 1000),
    timezoneOffset: 0,
  };
  const commit = await w.writeTreeCommit(entries, { parents: [], message: 'a copy', author });
  e.git(
    ['update-ref', '--stdin'],
    `create refs/lazy/tasks/${to} ${commit}\n` + (branch ? `create refs/heads/lazy/${to} ${branch}\n` : ''),
  );
  return to;
}

const tipOf = (e: Env, id: string) => e.git(['rev-parse', `refs/lazy/tasks/${id}`]).trim();

/** The refusal every unlisted action must give. */
export function refused(t: Test, r: Run, action: Action, what: string, status?: string): void {
  t.equal(r.code, 4, `${what}: ${action} is refused with exit 4 (${r.stdout.slice(0, 300)}${r.stderr.slice(0, 300)})`);
  const err = (() => {
    try {
      return JSON.parse(r.stdout).error;
    } catch {
      return undefined;
    }
  })();
  t.equal(err?.code, 'action_not_allowed', `${what}: ${action} refusal is action_not_allowed`);
  if (status) t.equal(err?.details?.status, status, `${what}: ${action} refusal names the status`);
}

/** show, list and inbox all carry the same available_actions. */
async function listed(t: Test, e: Env, id: string, state: State): Promise<void> {
  const v = await e.show(id);
  t.equal(v.status, STATUS[state], `${state}: the task is ${STATUS[state]}`);
  t.same(v.available_actions, EXPECT[state], `${state}: show --json lists exactly these actions`);
  const row = (await ok(e, ['list', '--all'])).find((r: any) => r.id === id);
  t.same(row?.available_actions, EXPECT[state], `${state}: list --json agrees`);
  const item = (await ok(e, ['inbox'])).find((i: any) => i.id === id);
  if (item) t.same(item.available_actions, EXPECT[state], `${state}: inbox --json agrees`);
}

/** Unlisted actions on the task itself (a refusal writes nothing); each listed one on a copy of it. */
export async function walkResting(t: Test, e: Env, state: State): Promise<void> {
  const id = await built(e, state);
  await listed(t, e, id, state);
  const pending = (await e.show(id)).pending_violations.length > 0;
  const tip = tipOf(e, id);
  const launched: string[] = [];
  await Promise.all(
    ACTIONS.map(async (a) => {
      if (!EXPECT[state].includes(a)) return refused(t, await e.run(ARGS[a](id, pending)), a, state, STATUS[state]);
      const c = await copy(e, id);
      const r = await e.run(ARGS[a](c, pending));
      t.equal(r.code, 0, `${state}: listed ${a} succeeds (${r.stdout.slice(0, 300)}${r.stderr.slice(0, 300)})`);
      if (LAUNCHES.has(a)) launched.push(c);
    }),
  );
  t.equal(tipOf(e, id), tip, `${state}: the refusals wrote nothing`);
  for (const c of launched) await e.run(['wait', c, '--timeout', '90']);
}

/** States owned by a live process: every action on the one task, the one that ends the state last. */
export async function walkLive(t: Test, e: Env, state: State, id: string, last?: Action): Promise<void> {
  await listed(t, e, id, state);
  for (const a of ACTIONS.filter((x) => x !== last)) {
    const r = await e.run(ARGS[a](id, false));
    if (EXPECT[state].includes(a)) t.equal(r.code, 0, `${state}: listed ${a} succeeds (${r.stdout.slice(0, 300)})`);
    else refused(t, r, a, state, STATUS[state]);
  }
  t.equal((await e.show(id)).status, STATUS[state], `${state}: still ${STATUS[state]} after every refusal`);
  if (last) t.equal((await e.run(ARGS[last](id, false))).code, 0, `${state}: listed ${last} succeeds`);
}

export async function walkPairing(t: Test, e: Env, id: string): Promise<void> {
  const done = join(e.box.sb.home, 'pair-done');
  const shell = shellScript(e.box.sb, 'pair-wait.sh', `while [ ! -f '${done}' ]; do sleep 0.1; done\n`);
  const pairing = lazy(['pair', id], { cwd: e.box.sb.dir, env: { ...e.box.sb.env, SHELL: shell } });
  await eventually(async () => (await e.show(id)).status === 'pairing', 30_000, 'pairing');
  await walkLive(t, e, 'pairing', id);
  writeFileSync(done, '');
  t.equal((await pairing).code, 0, 'the pairing session ends normally');
}

export async function walkMerging(t: Test, e: Env, id: string): Promise<void> {
  // An accept held after preflight keeps the task in merging, with no clock, until every other action has run against it.
  let step = '';
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const slow = lazy(['accept', id, '--yes', '--json'], {
    cwd: e.box.sb.dir,
    env: e.box.sb.env,
    io: {
      stepDelayMs: 1,
      narrate: (_i, _n, label) => void (step = label),
      clock: { ...systemClock, sleep: async () => void (step === ACCEPT_STEPS[1]!.label && (await held)) },
    },
  });
  let ended: Run | undefined;
  void slow.then((r) => {
    ended = r;
  });
  await eventually(
    async () => {
      if (ended)
        throw new Error(
          `the held accept ended before merging was seen: exit ${ended.code} ${ended.stdout}${ended.stderr}`,
        );
      return (await e.show(id)).status === 'merging';
    },
    60_000,
    'merging',
  );
  t.same((await e.show(id)).available_actions, EXPECT.merging, 'merging: show --json lists exactly these actions');
  // A second accept queues on the task's lock behind the held one: it is let go once the refusals are in.
  const o = { cwd: e.box.sb.dir, env: { ...e.box.sb.env, SHELL: '/bin/true', LAZY_LOCK_TIMEOUT_MS: '60000' } };
  const pending = ACTIONS.map((a) => [a, lazy([...ARGS[a](id, false), '--json'], o)] as const);
  await Promise.all(pending.filter(([a]) => !EXPECT.merging.includes(a)).map(([, r]) => r));
  release();
  for (const [a, run] of pending) {
    const r = await run;
    if (!EXPECT.merging.includes(a)) {
      refused(t, r, a, 'merging', 'merging'); // read while the accept holds the lock
      continue;
    }
    t.equal(r.code, 0, `merging: listed ${a} succeeds`);
    t.equal(JSON.parse(r.stdout).already_accepted, true, 'the second accept waits for the first and reports it');
  }
  t.equal((await slow).code, 0, 'the held accept itself succeeds');
}
