import t from 'tap';
import { cli, sandbox } from '../helpers/env.js';
import { agentSandbox } from '../helpers/agent.js';
import { cleanupAfterSupervisors } from '../helpers/supervisors.js';

// Lists people can search: list and inbox narrow by every --tag given, --search over goal,
// prompt and criteria, order by --sort, cut at --limit; an empty filtered list suggests no create.

const ids = (r: { value: { id: string }[] }) => r.value.map((x) => x.id);

t.test('list: repeated tags, search, sort, limit and the empty hints', async (t) => {
  const sb = sandbox();
  t.teardown(() => sb.cleanup());
  const l = cli(sb);
  const both = await l.create('Both tags', '--tag', 'ui', '--tag', 'bug');
  const ui = await l.create('Only ui', '--tag', 'ui', '--prompt', 'Fix the FLICKER in the sidebar', '--accept', 'ok');
  const bug = await l.create('Only bug', '--tag', 'bug', '--accept', 'no more Crash on save');
  t.same(ids(await l.json('list', '--tag', 'ui', '--tag', 'bug')), [both], 'two --tag: tasks with both');
  t.same(ids(await l.json('list', '--tag', 'ui')), [both, ui], 'one --tag');
  t.same(ids(await l.json('list', '--tag', 'ui,bug')), [both], 'a comma list is the same as repeating');
  t.same(ids(await l.json('list', '--search', 'flicker')), [ui], 'search reads the prompt, any case');
  t.same(ids(await l.json('list', '--search', 'crash ON')), [bug], 'search reads the criteria');
  t.same(ids(await l.json('list', '--search', 'only')), [ui, bug], 'search reads the goal');
  const text = (await l('list', '--search', 'flicker')).stdout;
  t.match(text, ui, 'the table (not --json) searches the prompt too');

  t.equal((await l('comment', both, '-m', 'touched last')).code, 0);
  t.same(ids(await l.json('list', '--sort', 'updated')), [both, bug, ui], 'updated: newest change first');
  t.same(ids(await l.json('list', '--sort', 'created')), [both, ui, bug], 'created: oldest first');
  t.equal((await l('queue', bug, '--priority', '5')).code, 0);
  t.equal((await l('queue', ui, '--priority', '1')).code, 0);
  t.same(ids(await l.json('list', '--sort', 'priority')), [bug, ui, both], 'priority: highest first');
  t.same(ids(await l.json('list', '--sort', 'priority', '--limit', '2')), [bug, ui], 'limit cuts after the sort');
  t.same(ids(await l.json('list', '--limit', '1')), [both], 'limit in creation order');
  t.equal((await l('list', '--limit', '0')).code, 2, 'a limit below 1 is a usage error');
  t.equal((await l('list', '--sort', 'size')).code, 2, 'an unknown sort is a usage error');

  const hidden = await l('list', '--tag', 'nope');
  t.equal(hidden.code, 0);
  t.notMatch(hidden.stdout, /lazy create/, 'a filter that hid everything does not suggest create');
  t.match(hidden.stdout, /no tasks match/);
  t.notMatch((await l('list', '--search', 'zzz', '--tree')).stdout, /lazy create/, 'nor does --tree');
  const empty = sandbox();
  t.teardown(() => empty.cleanup());
  t.match((await cli(empty)('list')).stdout, /lazy create/, 'an empty store still suggests create');
});

t.test('inbox takes the same filters', async (t) => {
  const { sb, l, scenario } = await agentSandbox();
  cleanupAfterSupervisors(t, sb);
  scenario('succeed');
  const a = await l.create('review me', '--tag', 'web', '--accept', 'the Widget renders');
  const b = await l.create('review me too', '--tag', 'web', '--tag', 'api', '--accept', 'done');
  for (const id of [a, b]) {
    t.equal((await l('start', id)).code, 0);
    t.equal((await l('wait', id, '--timeout', '60')).code, 0);
  }
  t.same(ids(await l.json('inbox')).sort(), [a, b].sort(), 'both wait for review');
  t.same(ids(await l.json('inbox', '--tag', 'web', '--tag', 'api')), [b], 'every tag must match');
  t.same(ids(await l.json('inbox', '--search', 'WIDGET')), [a], 'search reads the criteria');
  t.same(ids(await l.json('inbox', '--sort', 'created', '--limit', '1')), [a], 'sorted, then cut');
  t.equal((await l.json('inbox', '--limit', '1')).value.length, 1, 'limit');
  const none = await l('inbox', '--tag', 'nope');
  t.match(none.stdout, /matches these filters/, 'a filtered empty inbox says so');
  t.notMatch(none.stdout, /inbox zero/, 'and does not claim inbox zero');
});
