import { readFileSync, readdirSync, existsSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { sandbox, cli, gitSync, LAZY, ROOT, type Sandbox } from './env.js';
import { detachedLauncher } from '../../lib/core/launcher.js';
import { supervising } from './supervise.js';
import { TestClock } from './clock.js';

export const FAKE_AGENT = join(ROOT, 'test', 'fixtures', 'fake-agent.mjs');
/** The same agent in POSIX sh for its common scenarios (a few ms a launch); it hands the rest to FAKE_AGENT. */
export const FAKE_AGENT_SH = join(ROOT, 'test', 'fixtures', 'fake-agent.sh');
/** The fake agent as an agent's command line (`agents.<name>.command`). */
export const FAKE_COMMAND = `/bin/sh "${FAKE_AGENT_SH}"`;

export interface Invocation {
  n: number;
  scenario: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  prompt: string;
  pid: number;
  claude: boolean;
  session: string;
}

export interface AgentBox {
  sb: Sandbox;
  l: ReturnType<typeof cli>;
  /** The clock every command of this box runs on (and the supervisors they start in this process). */
  clock: TestClock;
  /** What the fake agent received, one entry per launch. */
  invocations(): Invocation[];
  /** Sets the scenario list for the next launches. */
  scenario(s: string): void;
  /**
   * Sets the scenarios of the next launches, counted from the launches the fake agent has
   * recorded: a launch killed before the agent began records none and consumes no scenario.
   */
  next(s: string): void;
  /**
   * Holds the slow scenarios' work (slow-succeed, slow-protected, crash, mcp) until the returned
   * function is called: the window a test checks a running turn in, with no clock to outlast.
   */
  gate(): () => void;
}

/**
 * A sandbox whose default agent is the scenario-driven fake agent, with fast retry
 * pacing and short grace periods so recovery paths run in seconds.
 */
export async function agentSandbox(
  o: {
    adapter?: 'command' | 'claude';
    settings?: Record<string, string>;
    env?: Record<string, string>;
    /** Supervisors as separate processes (the CLI's way): for a test that signals or kills one. */
    detached?: boolean;
  } = {},
): Promise<AgentBox> {
  const sb = sandbox('lazy-agent');
  const env: NodeJS.ProcessEnv = {
    FAKE_STATE: join(sb.home, 'fake-state'),
    FAKE_LOG: join(sb.home, 'fake-log.jsonl'),
    FAKE_SCENARIO: 'succeed',
    ...o.env,
  };
  const clock = new TestClock();
  const l = cli(sb, env, { clock, ...(o.detached ? { launcher: detachedLauncher(LAZY) } : {}) });
  let gates = 0;
  const settings: Record<string, string> = {
    'agents.fake.command': FAKE_COMMAND,
    agent: 'fake',
    retry_base_ms: '100',
    stop_grace_ms: '1000',
    crash_window_ms: '10000',
    ...(o.adapter === 'claude' ? { 'agents.fake.adapter': 'claude' } : {}),
    ...o.settings,
  };
  for (const [k, v] of Object.entries(settings)) {
    const r = await l('config', 'set', k, v);
    if (r.code !== 0) throw new Error(`config set ${k} failed: ${r.stderr}`);
  }
  return {
    sb,
    l,
    clock,
    invocations: () =>
      existsSync(env.FAKE_LOG!)
        ? completeLines(readFileSync(env.FAKE_LOG!, 'utf8')).map((x) => JSON.parse(x) as Invocation)
        : [],
    scenario: (s: string) => {
      env.FAKE_SCENARIO = s;
    },
    next: (s: string) => {
      const counter = join(env.FAKE_STATE!, 'count');
      const launched = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) || 0 : 0;
      env.FAKE_SCENARIO = [...Array<string>(launched).fill('succeed'), s].join(',');
    },
    gate: () => {
      const file = join(sb.home, `gate-${++gates}`);
      env.FAKE_GATE = file;
      return () => writeFileSync(file, '');
    },
  };
}

/** The lines of a JSON-lines file another process appends to: a line still being written (no newline yet) is left out. */
export const completeLines = (text: string): string[] =>
  text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean);

/** Polls a predicate (for states reached by a detached supervisor); `what` may be a function, read at the timeout to say what was last seen. */
export async function eventually<T>(
  f: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  what: string | (() => string) = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const runDirOf = (sb: Sandbox, run: string) => join(sb.dir, '.git', 'lazy', 'runs', run);
export const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

/** A run's agent is on record (agent.json, written by its supervisor once it spawned it): what `lazy stop` signals. */
export const agentRecorded = (sb: Sandbox, run: string) =>
  eventually(() => existsSync(join(runDirOf(sb, run), 'agent.json')), 20_000, `run ${run}'s agent on record`);

/** Whether a process is gone: no such pid, or a zombie waiting to be reaped. */
const gone = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()!.startsWith('Z');
  } catch {
    return true;
  }
};

/**
 * A crashed turn, settled: the supervisor writes outcome.json before it records the crash in the task's ref and
 * exits, so a test that acts on the crash (pause it, queue it, let a command resume it) waits for all three.
 */
export async function crashSettled(sb: Sandbox, run: string): Promise<void> {
  const dir = runDirOf(sb, run);
  await eventually(() => existsSync(join(dir, 'outcome.json')), 20_000, 'the crash outcome');
  const { task } = readJson(join(dir, 'run.json')) as { task: string };
  const recorded = () => gitSync(sb.dir, sb.env, ['log', '-1', '--format=%B', `refs/lazy/tasks/${task}`]);
  await eventually(() => / -> interrupted/.test(recorded()), 20_000, 'the crash recorded in the ref');
  await supervisorGone(sb, run);
}

/** A run's supervisor has returned: in this process, or as a process of its own. */
export async function supervisorGone(sb: Sandbox, run: string, timeoutMs = 20_000): Promise<void> {
  const rec = readJson(join(runDirOf(sb, run), 'run.json')) as { supervisor: { pid: number } | null };
  const pid = rec.supervisor?.pid;
  if (pid === process.pid)
    await eventually(() => !supervising(run), timeoutMs, `the supervisor of run ${run} to return`);
  else if (pid) await eventually(() => gone(pid), timeoutMs, `supervisor ${pid} to exit`);
}

/** An executable `sh` script in the sandbox's home (a pairing shell, say); returns its path. */
export function shellScript(sb: Sandbox, name: string, body: string): string {
  const path = join(sb.home, name);
  writeFileSync(path, `#!/bin/sh\n${body}`);
  chmodSync(path, 0o755);
  return path;
}

/** Creates a task with a criterion and runs its first turn to review (blocked), failing loudly otherwise. */
/** A task whose first turn ended in the blocked family (blocked, or conflict on a protected file); its id. */
export async function reviewed(box: AgentBox, goal = 'work', extra: string[] = []): Promise<string> {
  const id = await box.l.create(goal, '--accept', 'done', ...extra);
  await box.l('start', id);
  const w = await box.l.json('wait', id, '--timeout', '30');
  if (!['blocked', 'conflict'].includes(w.value.task.status))
    throw new Error(`not reviewed: ${JSON.stringify(w.value.task).slice(0, 300)}`);
  return id;
}

/** The tasks with an active marker (a turn, pairing or accept under way) in a repository. */
export function activeMarkers(dir: string): string[] {
  try {
    return readdirSync(join(dir, '.git', 'lazy', 'active'));
  } catch {
    return [];
  }
}

/** An agent sandbox that protects config/**, running `scenario`; cleaned up with the test. */
export async function protectedBox(t: { teardown(f: () => unknown): void }, scenario: string): Promise<AgentBox> {
  const box = await agentSandbox({ settings: { protected: 'config/**' } });
  t.teardown(box.sb.cleanup);
  box.scenario(scenario);
  return box;
}

/** The task as `lazy show --json` prints it. */
export const showOf = async (box: AgentBox, id: string) => (await box.l.json('show', id)).value;

/** Waits for a run's agent turn to be recorded and the task to leave working; the task then. */
export const runSettled = (box: AgentBox, id: string, run: string) =>
  eventually(
    async () => {
      const v = await showOf(box, id);
      return v.status !== 'working' && v.turns.some((x: any) => x.run === run && x.role === 'agent') ? v : undefined;
    },
    30_000,
    `run ${run} recorded`,
  );
