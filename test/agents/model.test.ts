import t from 'tap';
import { agentSandbox } from '../helpers/agent.js';
import { ADAPTERS } from '../../lib/agents/adapters/registry.js';
import type { AgentSpec, TurnInput } from '../../lib/agents/adapters/adapter.js';

// issue 30, a model per agent and per task: `agents.<name>.model`, `create|start|edit --model`.
// The task's model wins over its agent's, reaches the real agent process (claude `--model`,
// codex `-m`, a command agent's LAZY_MODEL), and is recorded on the agent turn; later turns keep it.

t.jobs = 4;

const after = (argv: string[], flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
const agentTurns = (v: any) => v.turns.filter((x: any) => x.role === 'agent');

t.test(
  'create --model: every turn of the task runs with it, resumed ones too, and show and the turn say so',
  async (t) => {
    const { sb, l, invocations } = await agentSandbox({
      adapter: 'claude',
      settings: { 'agents.fake.model': 'configured-model' },
    });
    t.teardown(sb.cleanup);
    const id = await l.create('greet', '--accept', 'a greeting', '--model', 'claude-opus-4-1');
    t.equal((await l('start', id)).code, 0);
    t.equal((await l.json('wait', id, '--timeout', '30')).value.task.status, 'blocked');
    t.equal((await l('unblock', id, '-m', 'once more')).code, 0);
    t.equal((await l.json('wait', id, '--timeout', '30')).value.task.status, 'blocked');

    const [first, second] = invocations();
    t.equal(after(first!.argv, '--model'), 'claude-opus-4-1', "the task's model beats agents.fake.model");
    t.equal(after(second!.argv, '--resume'), first!.session, 'the second turn resumes the session');
    t.equal(after(second!.argv, '--model'), 'claude-opus-4-1', 'and keeps the model');
    t.notOk(first!.env.LAZY_MODEL, 'a claude agent gets the model in argv, not in its environment');

    const v = (await l.json('show', id)).value;
    t.equal(v.model, 'claude-opus-4-1', 'show --json carries the task model');
    t.same(
      agentTurns(v).map((x: any) => x.details.model),
      ['claude-opus-4-1', 'claude-opus-4-1'],
      'each agent turn records the model it ran with',
    );
    t.match((await l('show', id)).stdout, /^model: +claude-opus-4-1$/m, 'show prints it');
  },
);

t.test('agents.<name>.model applies when the task names none; a command agent gets it as LAZY_MODEL', async (t) => {
  const { sb, l, invocations } = await agentSandbox({ settings: { 'agents.fake.model': 'cfg-model' } });
  t.teardown(sb.cleanup);
  const plain = await l.create('no model of its own', '--accept', 'done');
  t.equal((await l('start', plain)).code, 0);
  await l.json('wait', plain, '--timeout', '30');
  const own = await l.create('a model of its own', '--accept', 'done', '--model', 'task-model');
  t.equal((await l('start', own)).code, 0);
  await l.json('wait', own, '--timeout', '30');

  const [a, b] = invocations();
  t.equal(a!.env.LAZY_MODEL, 'cfg-model', "the agent's configured model");
  t.equal(b!.env.LAZY_MODEL, 'task-model', "the task's own model wins");
  t.equal(a!.argv.length, 1, "a command agent's argv stays its own: the prompt only");
  t.equal((await l.json('show', plain)).value.model, null, 'a task without a model shows null');
  t.equal(agentTurns((await l.json('show', plain)).value)[0].details.model, 'cfg-model', 'the turn records it');
  t.notMatch((await l('show', plain)).stdout, /^model:/m);
});

t.test('no model anywhere: the CLI chooses, and nothing says otherwise', async (t) => {
  const { sb, l, invocations } = await agentSandbox({ adapter: 'claude' });
  t.teardown(sb.cleanup);
  const id = await l.create('greet', '--accept', 'a greeting');
  t.equal((await l('start', id)).code, 0);
  await l.json('wait', id, '--timeout', '30');
  const [inv] = invocations();
  t.notOk(inv!.argv.includes('--model'));
  t.notOk(inv!.env.LAZY_MODEL);
  t.notOk('model' in agentTurns((await l.json('show', id)).value)[0].details, 'the turn records no model');
});

t.test('start --model is the task model from then on; edit --model changes or removes it', async (t) => {
  const { sb, l, invocations } = await agentSandbox({ adapter: 'claude' });
  t.teardown(sb.cleanup);
  const id = await l.create('greet', '--accept', 'a greeting');
  const started = await l.json('start', id, '--model', 'sonnet[1m]');
  t.equal(started.run.code, 0);
  t.equal(started.value.task.model, 'sonnet[1m]', 'start records it on the task, as --agent is');
  await l.json('wait', id, '--timeout', '30');
  t.equal((await l('unblock', id, '-m', 'again')).code, 0);
  await l.json('wait', id, '--timeout', '30');
  t.same(
    invocations().map((i) => after(i.argv, '--model')),
    ['sonnet[1m]', 'sonnet[1m]'],
    'the next turn keeps it',
  );

  const other = await l.create('edited');
  const edited = await l.json('edit', other, '--model', 'haiku');
  t.equal(edited.value.task.model, 'haiku');
  const cleared = await l.json('edit', other, '--model', '');
  t.equal(cleared.run.code, 0);
  t.equal(cleared.value.task.model, null, "'' removes it");

  for (const args of [
    ['create', 'bad', '--model=--dangerously-skip-permissions'],
    ['edit', other, '--model', 'a model'],
    ['start', other, '--model=-x'],
  ]) {
    const r = await l(...args);
    t.equal(r.code, 2, `${args[0]} refuses a model name that is no plain token`);
    t.match(r.stderr, /model name/);
  }
  t.equal((await l.json('show', other)).value.status, 'backlog', 'a refused start starts nothing');
  const bad = await l('config', 'set', 'agents.fake.model', '-oops');
  t.not(bad.code, 0, 'nor does config take one');
});

t.test('each adapter passes the model as its CLI expects', async (t) => {
  const spec = (adapter: 'claude' | 'codex' | 'command'): AgentSpec => ({ name: adapter, adapter, command: [adapter] });
  const input = (o: Partial<TurnInput> = {}): TurnInput => ({ prompt: 'do it', sessionId: null, mode: 'work', ...o });
  const claude = ADAPTERS.claude.argv(spec('claude'), input({ model: 'opus', sessionId: 'abc' }));
  t.equal(after(claude, '--model'), 'opus');
  t.equal(after(claude, '--resume'), 'abc');
  t.same(ADAPTERS.codex.argv(spec('codex'), input({ model: 'gpt-5' })).slice(0, 4), ['codex', 'exec', '-m', 'gpt-5']);
  t.same(
    ADAPTERS.codex.argv(spec('codex'), input({ model: 'gpt-5', sessionId: 'th-1' })).slice(0, 5),
    ['codex', 'exec', '-m', 'gpt-5', 'resume'],
    "exec's -m comes before resume",
  );
  t.notOk(ADAPTERS.codex.argv(spec('codex'), input()).includes('-m'));
  t.same(
    ADAPTERS.command.argv(spec('command'), input({ model: 'x' })),
    ['command', 'do it'],
    'command: argv unchanged',
  );
});
