import t, { type Test } from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { cli, gitSync, ROOT, type Sandbox } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';
import { eventually, shellScript } from '../helpers/agent.js';

// The scripting contract: every command's --json output, produced for real, validates against
// its documented JSON Schema in schemas/output/ (docs/commands.md, "Scripting").

const DIR = join(ROOT, 'schemas', 'output');
const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
// The output schemas share the stored documents' definitions (a status is one enum: schemas/defs.schema.json).
ajv.addSchema(JSON.parse(readFileSync(join(ROOT, 'schemas', 'defs.schema.json'), 'utf8')));
for (const f of readdirSync(DIR).filter((f) => f.endsWith('.schema.json')))
  ajv.addSchema(JSON.parse(readFileSync(join(DIR, f), 'utf8')));
const schema = (name: string): ValidateFunction => {
  const v = ajv.getSchema(`https://lazy.dev/schemas/output/${name}.schema.json`);
  if (!v) throw new Error(`no schema ${name}`);
  return v;
};

/**
 * Every command a user runs (the internal supervise, demo-agent and bench-seed, mcp's stdio server, ui's web server
 * (its --json first line: test/ui/server.test.ts), and help, which prints yargs' help text as --help does, aside).
 */
const COMMANDS = readdirSync(join(ROOT, 'bin', 'commands'))
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((c) => !['supervise', 'demo-agent', 'bench-seed', 'mcp', 'ui', 'help'].includes(c));

const covered = new Set<string>();
const used = new Set<string>();

/** Runs `lazy <args> --json`, checks its exit code and validates its stdout against `name`. */
async function check(tt: Test, l: ReturnType<typeof cli>, name: string, args: string[], code = 0): Promise<any> {
  const r = await l.json(...args);
  const why = r.run.code === code ? '' : ` (${r.run.stdout.slice(0, 300)} ${r.run.stderr})`;
  tt.equal(r.run.code, code, `lazy ${args.join(' ')} exits ${code}${why}`);
  const valid = schema(name)(r.value);
  tt.ok(valid, `lazy ${args.join(' ')} --json matches ${name}.schema.json`, {
    errors: schema(name).errors?.slice(0, 5),
  });
  const title = String((schema(name).schema as { title?: string }).title);
  if (name !== 'error')
    tt.ok(/^lazy ([a-z|-]+) /.exec(title)?.[1]!.split('|').includes(args[0]!), `${name}'s title names ${args[0]}`);
  covered.add(args[0]!);
  used.add(name);
  return r.value;
}

t.test('every command prints what its schema documents', async (t) => {
  const tm = team(2, 'lazy-schemas');
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones as [Sandbox, Sandbox];
  await withFakeAgent(a);
  await withFakeAgent(b);
  const l = cli(a);
  const hang = cli(a, { FAKE_SCENARIO: 'hang' });

  await check(t, l, 'init', ['init']);
  await check(t, l, 'completion', ['completion', 'fish']);
  const one = (await check(t, l, 'task-result', ['create', 'the first', '--accept', 'done'])).task.id;
  const two = (await check(t, l, 'task-result', ['create', 'the second', '--accept', 'done'])).task.id;
  const vague = (await check(t, l, 'task-result', ['create', 'no criterion yet'])).task.id;
  await check(t, l, 'list', ['list']);
  await check(t, l, 'show', ['show', one]);
  await check(t, l, 'task-result', ['comment', one, '-m', 'mind the tests']);
  await check(t, l, 'task-result', ['edit', one, '--tag', 'json']);
  for (const op of ['queue', 'pause', 'unpause', 'unqueue']) await check(t, l, 'queue', [op, two]);

  await check(t, l, 'turn-started', ['start', one]);
  await check(t, l, 'watch', ['watch', '--once']);
  await check(t, l, 'task-result', ['wait', one, '--timeout', '60']);
  await check(t, l, 'inbox', ['inbox']);
  await check(t, l, 'usage', ['usage']);
  await check(t, l, 'usage', ['usage', '--by', 'day']);
  await check(t, l, 'log', ['log', one]);
  await check(t, l, 'diff', ['diff', one]);
  await check(t, l, 'show-markdown', ['show', one, '--markdown']);
  await check(t, l, 'ask', ['ask', one, '-m', 'what is the answer?', '--timeout', '60']);
  await check(t, l, 'turn-started', ['unblock', one, '-m', 'one more thing']);
  await check(t, l, 'task-result', ['wait', one, '--timeout', '60']);
  // No `--` here: check puts --json last, which after `--` would be the command's. It exits 0, the run recorded.
  t.match(await check(t, l, 'run', ['run', one, 'false']), { exit_code: 1, command: ['false'] });
  const pairShell = shellScript(a, 'pair.sh', 'exit 0\n');
  await check(t, cli(a, { SHELL: pairShell }), 'pair', ['pair', one]);
  await check(t, l, 'submit', ['submit', one]);
  await check(t, l, 'accept', ['accept', one, '--yes']);
  // The accept deleted the branch: brought back at the reviewed head, a follow-up works on it (and is back at once).
  gitSync(a.dir, a.env, ['branch', `lazy/${one}`, (await l.json('show', one)).value.reviewed_head]);
  await check(t, l, 'turn-started', ['follow-up', one, '--command', 'true']);

  await check(t, l, 'turn-started', ['start', vague]); // parks for a completion condition: run is null
  await check(t, l, 'turn-started', ['answer', vague, '-m', 'the tests pass']);
  await check(t, l, 'task-result', ['wait', vague, '--timeout', '60']);

  await check(t, hang, 'turn-started', ['start', two]);
  await check(t, l, 'stop', ['stop', two]);
  await check(t, hang, 'turn-started', ['resume', two]); // hangs, so the stop below finds it working
  await check(t, l, 'stop', ['stop', two]);
  await check(t, l, 'turn-started', ['repair', two, '-m', 'clean the worktree']);
  const back = async () => (await l.json('show', two)).value.status === 'interrupted';
  await eventually(back, 30_000, 'the repair back to interrupted');
  await check(t, l, 'close', ['reject', two]);
  await check(t, l, 'task-result', ['reopen', two]);
  await check(t, l, 'close', ['close', two]);
  await check(t, l, 'list', ['list', '--all']);
  t.ok((await check(t, l, 'archive', ['archive', '--older-than', '0'])).archived.includes(two), 'the closed task left');
  await check(t, l, 'list', ['list', '--all']); // its row now read from the archive

  await check(t, l, 'doctor', ['doctor']);
  await check(t, l, 'config', ['config', 'set', 'retry_base_ms', '100', '--local']);
  await check(t, l, 'config', ['config', 'get', 'agent']);
  await check(t, l, 'config', ['config', 'list']);
  await check(t, l, 'push', ['push']);
  await check(t, cli(b), 'pull', ['pull']);
  await check(t, l, 'sync', ['sync']);

  const queued = (await check(t, l, 'task-result', ['create', 'for the fleet', '--accept', 'done'])).task.id;
  await check(t, l, 'queue', ['queue', queued]);
  await check(t, l, 'push', ['push']);
  const worked = await check(t, cli(b), 'work', ['work', '--max', '1', '--drain']);
  t.same(
    worked.claimed.map((c: any) => c.task),
    [queued],
    'the worker claimed the queued task',
  );

  const failed = await check(t, l, 'error', ['show', 'zzzzzzzz'], 3);
  t.equal(failed.error.code, 'task_not_found');
});

t.test('demo --json matches its schema', async (t) => {
  const tm = team(1, 'lazy-schemas-demo');
  t.teardown(tm.cleanup);
  await check(t, cli(tm.clones[0]!), 'demo', ['demo']);
});

t.test('every command and every schema was exercised', async (t) => {
  t.same(
    COMMANDS.filter((c) => !covered.has(c)),
    [],
    'no command left unchecked',
  );
  const files = readdirSync(DIR).map((f) => f.replace('.schema.json', ''));
  t.same(
    files.filter((f) => !used.has(f) && f !== 'task'),
    [],
    'no schema documents a shape nothing prints (task.schema.json is the shared part)',
  );
});
