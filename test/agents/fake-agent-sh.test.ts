import t, { type Test } from 'tap';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

t.jobs = 4;

// test/fixtures/fake-agent.sh is the sh twin of fake-agent.mjs for the common scenarios (no
// node start-up per agent turn). Each case runs both, side by side in twin repositories with
// the same environment, and asserts they are indistinguishable: exit, stdout, stderr, the
// FAKE_LOG record, the counter, the worktree and its commits, the result envelope.

/** The repository: the nearest lazy package.json above this file (it may run bundled, from build/test/). */
const ROOT = ((from: string): string => {
  for (let d = from; ; d = dirname(d)) {
    const pkg = join(d, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'lazy') return d;
    if (dirname(d) === d) throw new Error(`no lazy package.json above ${from}`);
  }
})(dirname(fileURLToPath(import.meta.url)));
const FIXTURES = join(ROOT, 'test', 'fixtures');
const MJS = join(FIXTURES, 'fake-agent.mjs');
const SH = join(FIXTURES, 'fake-agent.sh');

const PROMPT = 'Task: fix "the bug" in C:\\src\\x\n\tsecond line 🎉 \u0007 bell, \u001b escape, \r return';
const RESUMED = '3f1c2a4e-7b9d-4e21-9a3c-5d8e6f701234';
const ODD_SESSION = 'ses "q" \\ é\t1';
// Every box lives here, and goes with the file's last teardown whatever happened to its test.
const TMP = realpathSync(mkdtempSync(join(tmpdir(), 'fake-agent-sh-')));
t.teardown(() => rmSync(TMP, { recursive: true, force: true }));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Dialect {
  name: string;
  args: string[];
}
const DIALECTS: Dialect[] = [
  { name: 'plain', args: [PROMPT] },
  { name: 'claude', args: ['-p', PROMPT, '--output-format', 'stream-json', '--verbose'] },
  { name: 'plain resumed', args: ['--resume', RESUMED, PROMPT] },
  {
    name: 'claude resumed',
    args: ['-p', PROMPT, '--output-format', 'stream-json', '--verbose', '--resume', ODD_SESSION],
  },
];

/** The line a scenario prints before it hangs: the test ends it from there. */
const HANGS: Record<string, string> = {
  hang: 'thinking forever',
  'hang-escape': 'clearing \u001b[2Jthe screen',
  'ignore-sigterm': 'running and ignoring SIGTERM',
  'litter-hang': 'left files behind',
  'protected-hang': 'committed a protected file',
};
/** Scenarios that work until FAKE_GATE exists, and the line they print before they wait on it. */
const GATED: Record<string, string> = {
  'slow-succeed': 'fake agent: invocation 1, scenario slow-succeed',
  'slow-protected': 'fake agent: invocation 1, scenario slow-protected',
  crash: 'fake agent: invocation 1, scenario crash',
  'protected-crash': 'committed a protected file',
};
const IMPLEMENTED = [
  'succeed',
  'slow-succeed',
  'succeed-dirty',
  'silent',
  'crash',
  'hang',
  'hang-escape',
  'ignore-sigterm',
  'auth',
  'protected-auth',
  'rate-limit',
  'noisy-fail',
  'usage-limit',
  'usage-limit-5000',
  'usage-limit-none',
  'unknown',
  'malformed',
  'question',
  'blocked',
  'protected',
  'slow-protected',
  'protected-crash',
  'protected-hang',
  'dirty-index-lock',
  'litter',
  'litter-hang',
];
/** Scenarios killed before they finish or fail: in claude's framing they print the init line alone, as hang does. */
const KILLED = new Set(['crash', 'hang-escape', 'ignore-sigterm', 'litter-hang', 'protected-crash', 'protected-hang']);
/**
 * The scenarios each dialect runs. Plain runs every scenario: its own work (files, commits, lines, exit,
 * signals) is the same in every dialect. Claude frames each scenario's own finish/fail words as JSON lines
 * where plain prints them on stderr or not at all, so it runs every scenario that finishes or fails, and
 * hang for those killed before either (nothing but the init line is framed). A resumed dialect changes
 * only the session: the log record's (written before any scenario's own work) and, in claude's, the
 * session_id out() adds to every JSON line. So plain resumed runs a success and a failure, and claude
 * resumed one scenario per kind of line it prints: init and the result (succeed), the result of an
 * untyped failure (unknown), the typed error's assistant line (auth), api_retry with a status
 * (rate-limit), rate_limit_event (usage-limit), and init alone before a hang (hang).
 */
const RUNS: Record<string, string[]> = {
  plain: IMPLEMENTED,
  claude: IMPLEMENTED.filter((s) => !KILLED.has(s)),
  'plain resumed': ['succeed', 'auth'],
  'claude resumed': ['succeed', 'unknown', 'auth', 'rate-limit', 'usage-limit', 'hang'],
};

/** One repository every box copies: git init, add and commit once per file, not twice per case. */
let template: string | undefined;
function templateRepo(env: Record<string, string>): string {
  if (template) return template;
  const repo = join(mkdtempSync(join(TMP, 'template-')), 'repo');
  mkdirSync(join(repo, '.lazy'), { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  // Git's sample hooks are inert: no box needs a copy of them.
  rmSync(join(repo, '.git', 'hooks'), { recursive: true, force: true });
  writeFileSync(join(repo, 'work-1.txt'), 'initial\n');
  writeFileSync(join(repo, 'README.md'), '# a repo\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial commit');
  appendFileSync(join(repo, '.git', 'info', 'exclude'), '.lazy/\n');
  return (template = repo);
}

/** A temporary git repository with one commit, and the state, log and home beside it. */
class Box {
  readonly root: string;
  readonly repo: string;
  readonly env: Record<string, string>;
  constructor(t: Test, env: Record<string, string | undefined> = {}) {
    this.root = mkdtempSync(join(TMP, 'box-'));
    t.teardown(() => rmSync(this.root, { recursive: true, force: true }));
    this.repo = join(this.root, 'repo');
    mkdirSync(join(this.root, 'home'));
    const all: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      HOME: join(this.root, 'home'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Fake Author',
      GIT_AUTHOR_EMAIL: 'author@example.com',
      GIT_COMMITTER_NAME: 'Fake Committer',
      GIT_COMMITTER_EMAIL: 'committer@example.com',
      FAKE_STATE: join(this.root, 'state'),
      FAKE_LOG: join(this.root, 'log.jsonl'),
      LAZY_RESULT: join(this.repo, '.lazy', 'result.json'),
      LAZY_TASK_ID: 't-42',
      LAZY_NOTE: 'a "quoted" note\n\twith a \\ and é',
      MCP_SERVER_NAME: 'lazy',
      LAZYISH: 'not logged',
      NOT_LAZY_X: 'not logged either',
      ...env,
    };
    this.env = Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
    // The same repository in every box (its commit's hash included): a copy of one made once.
    cpSync(templateRepo(this.env), this.repo, { recursive: true });
  }
  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.repo, env: this.env, encoding: 'utf8' });
  }
  /** Replaces this box's own path, so that twin boxes compare equal. */
  norm(s: string): string {
    return s.split(this.root).join('<root>');
  }
  /** The worktree as git and the disk see it. */
  worktree() {
    const files = this.git('ls-files', '-co', '--exclude-standard', '-z').split('\0').filter(Boolean).sort();
    return {
      log: this.git('log', '--format=%s'),
      lsFiles: this.git('ls-files'),
      status: this.git('status', '--porcelain', '--untracked-files=all'),
      contents: Object.fromEntries(files.map((f) => [f, readFileSync(join(this.repo, f), 'utf8')])),
      indexLock: existsSync(join(this.repo, '.git', 'index.lock')),
    };
  }
  counter(): string | null {
    const f = join(this.env.FAKE_STATE!, 'count');
    return existsSync(f) ? readFileSync(f, 'utf8') : null;
  }
  records(): any[] {
    const f = this.env.FAKE_LOG!;
    if (!existsSync(f)) return [];
    const text = readFileSync(f, 'utf8');
    if (text !== '' && !text.endsWith('\n')) throw new Error(`the log's last line is unfinished: ${text}`);
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  }
  envelope(): string | null {
    const f = this.env.LAZY_RESULT!;
    return existsSync(f) ? readFileSync(f, 'utf8') : null;
  }
}

interface RunOpts {
  scenario: string;
  args: string[];
  env?: Record<string, string>;
  /** Kill the group once this line is out (hang-like scenarios). */
  hangLine?: string;
  /** Create FAKE_GATE once this line is out and the agent still runs. */
  gateLine?: string;
}
interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number;
  started: number;
  ended: number;
  /** The commands of the agent's process group while it ran (hang and gated scenarios). */
  group: string[];
}

const waitFor = async (cond: () => boolean, what: string, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

/** The command names of the processes in group pgid. */
function groupComms(pgid: number): string[] {
  const comms: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[2]) === pgid) comms.push(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
    } catch {
      /* gone */
    }
  }
  return comms;
}

async function run(t: Test, box: Box, agent: 'mjs' | 'sh', o: RunOpts): Promise<Run> {
  const env: Record<string, string> = { ...box.env, FAKE_SCENARIO: o.scenario, FAKE_NODE: '/bin/false', ...o.env };
  if (o.gateLine) env.FAKE_GATE = join(box.root, 'gate');
  const started = Date.now();
  const child =
    agent === 'mjs'
      ? spawn(process.execPath, [MJS, ...o.args], { cwd: box.repo, env, detached: true })
      : spawn('/bin/sh', [SH, ...o.args], { cwd: box.repo, env, detached: true });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (b: Buffer) => out.push(b));
  child.stderr!.on('data', (b: Buffer) => err.push(b));
  const closed = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (code, signal) => resolve([code, signal])),
  );
  const stdout = () => Buffer.concat(out).toString('utf8');
  const pid = child.pid!;
  // Whatever happens to the test, the agent's group ends with it.
  t.teardown(() => {
    if (running(child)) process.kill(-pid, 'SIGKILL');
  });
  let group: string[] = [];
  const lineOut = (line: string) => waitFor(() => stdout().includes(line + '\n'), `"${line}"`);
  if (o.hangLine) {
    await lineOut(o.hangLine);
    group = groupComms(pid);
    if (o.scenario === 'ignore-sigterm') {
      process.kill(-pid, 'SIGTERM');
      await lineOut('ignoring SIGTERM');
      await pause(300);
      t.ok(running(child), `${agent}: SIGTERM ignored`);
      process.kill(-pid, 'SIGKILL');
    } else process.kill(-pid, 'SIGTERM');
  } else if (o.gateLine) {
    await lineOut(o.gateLine);
    await pause(100);
    t.ok(running(child), `${agent}: waits on the gate`);
    group = groupComms(pid);
    writeFileSync(env.FAKE_GATE!, '');
  }
  const [code, signal] = await closed;
  return {
    code,
    signal,
    stdout: stdout(),
    stderr: Buffer.concat(err).toString('utf8'),
    pid,
    started,
    ended: Date.now(),
    group,
  };
}

/** A usage-limit reset time must lie in its run's window, now + ms; it then compares as <reset>. */
function resetWithin(t: Test, r: Run, scenario: string, atMs: number): string {
  const ms = Number(scenario.slice('usage-limit-'.length) || '2000');
  t.ok(atMs >= r.started + ms && atMs <= r.ended + ms + 1000, `reset ${atMs} is now + ${ms} ms`);
  return '<reset>';
}

/** What a run shows, with the random and the time-based taken out (and checked). */
function observe(t: Test, box: Box, r: Run, o: RunOpts) {
  const records = box.records();
  const last = records.at(-1);
  // The session: the one resumed (none when --resume ends argv), else a fresh uuid.
  const resumed = o.args.includes('--resume');
  const session: string | undefined = resumed ? o.args[o.args.indexOf('--resume') + 1] : last?.session;
  if (!resumed && last) t.match(last.session, UUID, 'a fresh session is a uuid');
  const stdout = box
    .norm(r.stdout)
    .split('\n')
    .map((line) => {
      let v: any;
      try {
        v = JSON.parse(line);
      } catch {
        return line;
      }
      if (v && typeof v === 'object' && 'session_id' in v) {
        t.equal(v.session_id, session, 'session_id is the session');
        if (!resumed) v.session_id = '<session>';
      }
      if (v?.type === 'rate_limit_event' && 'resetsAt' in v.rate_limit_info)
        v.rate_limit_info.resetsAt = resetWithin(t, r, o.scenario, v.rate_limit_info.resetsAt * 1000);
      return v;
    });
  const stderr = box
    .norm(r.stderr)
    .replace(/ resets=(\S+Z):/, (_, iso: string) => ` resets=${resetWithin(t, r, o.scenario, Date.parse(iso))}:`);
  if (last) t.equal(last.pid, r.pid, 'the log names the agent process');
  const log = records.map((rec) => {
    const { pid: _pid, ...rest } = rec;
    if (!resumed) rest.session = '<session>';
    return JSON.parse(box.norm(JSON.stringify(rest)));
  });
  const text = box.envelope();
  let envelope: unknown = text;
  if (text !== null && o.scenario !== 'malformed')
    try {
      envelope = JSON.parse(text);
    } catch {
      /* compared as text */
    }
  return {
    exit: { code: r.code, signal: r.signal },
    stdout,
    stderr,
    log,
    counter: box.counter(),
    worktree: box.worktree(),
    envelope,
  };
}

/** Runs the scenario with both agents in twin boxes and asserts the same observations. */
async function twins(t: Test, o: RunOpts, boxEnv: Record<string, string> = {}) {
  const [mb, sb] = [new Box(t, boxEnv), new Box(t, boxEnv)];
  const [m, s] = await Promise.all([run(t, mb, 'mjs', o), run(t, sb, 'sh', o)]);
  const [mo, so] = [observe(t, mb, m, o), observe(t, sb, s, o)];
  t.strictSame(so, mo, 'the sh agent does what the node agent does');
  return { m, s, mo, so };
}

t.test('every implemented scenario, in each framing, matches fake-agent.mjs', async (t) => {
  t.jobs = 4; // each case waits on its two agents far more than it works
  for (const d of DIALECTS)
    for (const scenario of RUNS[d.name]!)
      t.test(`${scenario}, ${d.name}`, async (t) => {
        const { s, so } = await twins(t, {
          scenario,
          args: d.args,
          ...(HANGS[scenario] ? { hangLine: HANGS[scenario] } : {}),
          ...(GATED[scenario] ? { gateLine: GATED[scenario] } : {}),
        });
        // Its own work, not node's: FAKE_NODE is /bin/false, the log names the sh's pid, and no
        // process of its group was node while it ran.
        t.equal(so.log.length, 1);
        t.notOk(
          s.group.some((c) => c === 'node' || c.startsWith('node')),
          `no node in the group (${s.group})`,
        );
        if (HANGS[scenario] || GATED[scenario]) t.ok(s.group.length > 0, 'the group was seen');
      });
});

t.test('slow scenarios without a gate wait FAKE_SLEEP_MS', async (t) => {
  for (const scenario of ['slow-succeed', 'slow-protected'])
    t.test(scenario, async (t) => {
      await twins(t, { scenario, args: DIALECTS[1]!.args }, { FAKE_SLEEP_MS: '50' });
    });
});

t.test('a scenario list: the counter picks each, the last repeats', async (t) => {
  const [mb, sb] = [new Box(t), new Box(t)];
  const o = { scenario: 'rate-limit,question,succeed', args: DIALECTS[0]!.args };
  for (let i = 1; i <= 4; i++) {
    const [m, s] = await Promise.all([run(t, mb, 'mjs', o), run(t, sb, 'sh', o)]);
    t.strictSame(observe(t, sb, s, o), observe(t, mb, m, o), `invocation ${i}`);
    t.equal(sb.counter(), String(i));
  }
  t.strictSame(
    sb.records().map((r) => r.scenario),
    ['rate-limit', 'question', 'succeed', 'succeed'],
  );
});

t.test('a counter that is not a number counts as 0', async (t) => {
  for (const content of ['', 'junk', '007'])
    t.test(JSON.stringify(content), async (t) => {
      const [mb, sb] = [new Box(t), new Box(t)];
      for (const b of [mb, sb]) {
        mkdirSync(b.env.FAKE_STATE!);
        writeFileSync(join(b.env.FAKE_STATE!, 'count'), content);
      }
      const o = { scenario: 'auth,unknown,unknown,unknown,unknown,unknown,unknown,blocked', args: DIALECTS[1]!.args };
      const [m, s] = await Promise.all([run(t, mb, 'mjs', o), run(t, sb, 'sh', o)]);
      t.strictSame(observe(t, sb, s, o), observe(t, mb, m, o));
    });
});

t.test('odd argv: the prompt and the session read as fake-agent.mjs reads them', async (t) => {
  const cases = [
    [],
    ['--output-format', 'stream-json', PROMPT], // claude without -p: argv[0]
    ['-p', PROMPT, '--output-format', 'stream-json', '-p'], // the first -p counts
    ['--output-format', 'stream-json', '-p'], // no prompt at all
    ['-p', PROMPT, '--output-format', 'stream-json', '--resume'], // no session either
    ['--resume', 'a', '--resume', 'b', PROMPT], // the first --resume counts
    ['--resume', '--output-format', 'x'], // the session is '--output-format', and it is claude
    ['exec', '--json', PROMPT], // codex's argv: plain lines for these scenarios
  ];
  // argv decides the dialect, the prompt and the session, nothing else: the log record shows all three, and a
  // failure frames its lines in the dialect read (JSON lines with the session, or a stderr line).
  for (const args of cases)
    t.test(`auth ${JSON.stringify(args).slice(0, 40)}`, async (t) => {
      await twins(t, { scenario: 'auth', args });
    });
});

t.test('concurrent agents append whole lines to one log', async (t) => {
  const box = new Box(t);
  const big = 'x"\\\n\t🎉'.repeat(6000); // ~70 KB of JSON per record
  const o = { scenario: 'silent', args: [big] };
  const runs = await Promise.all(Array.from({ length: 12 }, () => run(t, box, 'sh', o)));
  t.ok(runs.every((r) => r.code === 0));
  const records = box.records(); // each line parses
  t.equal(records.length, 12);
  t.ok(records.every((r) => r.prompt === big));
  t.strictSame(records.map((r) => r.pid).sort(), runs.map((r) => r.pid).sort());
});

t.test('without FAKE_STATE: the same complaint, exit 2', async (t) => {
  const [mb, sb] = [new Box(t, { FAKE_STATE: undefined }), new Box(t, { FAKE_STATE: undefined })];
  const o = { scenario: 'succeed', args: DIALECTS[0]!.args };
  const [m, s] = await Promise.all([run(t, mb, 'mjs', o), run(t, sb, 'sh', o)]);
  t.equal(s.code, 2);
  t.equal(s.stderr, 'fake-agent: FAKE_STATE is required\n');
  t.strictSame([s.code, s.signal, s.stdout, s.stderr], [m.code, m.signal, m.stdout, m.stderr]);
});

t.test('other scenarios are delegated to fake-agent.mjs, counter and log included', async (t) => {
  const cases: [string, string[]][] = [
    ['ran-commands', DIALECTS[0]!.args],
    ['ran-commands', DIALECTS[3]!.args],
    ['ran-commands', ['exec', '--json', PROMPT]],
    ['ran-commands-bare', DIALECTS[1]!.args],
    ['no-such-scenario', DIALECTS[1]!.args],
    ['usage-limit-soon', DIALECTS[0]!.args],
    ['succeed,mcp', DIALECTS[1]!.args],
  ];
  for (const [scenario, args] of cases)
    t.test(`${scenario} ${args.join(' ').slice(0, 24)}`, async (t) => {
      const [mb, sb] = [new Box(t), new Box(t)];
      const o = { scenario, args, env: { FAKE_NODE: process.execPath } };
      for (let i = 0; i < (scenario.includes(',') ? 2 : 1); i++) {
        const [m, s] = await Promise.all([run(t, mb, 'mjs', o), run(t, sb, 'sh', o)]);
        const mo = observe(t, mb, m, o);
        // A stack trace names the node agent's own file: the same in both.
        t.strictSame(observe(t, sb, s, o), mo, `invocation ${i + 1}`);
      }
    });

  t.test('through FAKE_NODE, before the counter and the log', async (t) => {
    const box = new Box(t);
    const bin = join(box.root, 'fake-node');
    writeFileSync(bin, '#!/bin/sh\necho "fake node: $*"\nexit 7\n', { mode: 0o755 });
    const r = await run(t, box, 'sh', { scenario: 'ran-commands', args: ['hello'], env: { FAKE_NODE: bin } });
    t.equal(r.code, 7);
    t.equal(r.stdout, `fake node: ${MJS} hello\n`);
    t.equal(box.counter(), null, 'no counter');
    t.strictSame(box.records(), [], 'no log record');
  });
});
