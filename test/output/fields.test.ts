import t from 'tap';
import { parseFields, pickFields, documentedFields } from '../../lib/output/fields.js';
import { sandbox, cli } from '../helpers/env.js';

// --fields a,b.c (lib/output/fields.ts): the --json document cut down to the named fields.

t.test('pickFields keeps the shape, row by row, through objects and lists', async (t) => {
  const doc = {
    task: { id: 'abcd1234', status: 'blocked', turns: [{ role: 'agent', kind: 'work' }, { role: 'human' }] },
  };
  t.same(pickFields(doc, parseFields('task.id,task.status')), { task: { id: 'abcd1234', status: 'blocked' } });
  t.same(pickFields(doc, parseFields('task.turns.role')), { task: { turns: [{ role: 'agent' }, { role: 'human' }] } });
  const rows = [
    { id: 'a', status: 'backlog', attention: null },
    { id: 'b', status: 'blocked', attention: { kind: 'review', reason: 'done' } },
  ];
  t.same(pickFields(rows, parseFields('id, attention.kind')), [
    { id: 'a', attention: null },
    { id: 'b', attention: { kind: 'review' } },
  ]);
  t.same(pickFields([], parseFields('anything')), [], 'an empty list stays []');
});

t.test('an unknown field or an empty name is a usage error naming what there is', async (t) => {
  const doc = { task: { id: 'x', status: 'backlog' } };
  t.throws(() => pickFields(doc, parseFields('tsk')), {
    code: 'usage',
    message: "unknown field 'tsk': the output has task",
    details: { field: 'tsk', known: ['task'] },
  });
  t.throws(() => pickFields(doc, parseFields('task.statu')), {
    code: 'usage',
    message: "unknown field 'task.statu': task has id, status",
  });
  for (const bad of ['', 'id,', 'a..b', ' , '])
    t.throws(() => parseFields(bad), { code: 'usage', message: /--fields takes field names/ }, `'${bad}'`);
});

t.test('the documented fields of a command come from its schemas', async (t) => {
  t.same(documentedFields('create'), ['task']);
  t.same(documentedFields('queue'), ['task']);
  t.ok(documentedFields('list')!.includes('attention'), "list's rows");
  t.ok(
    documentedFields('show')!.includes('markdown') && documentedFields('show')!.includes('status'),
    'show, both forms',
  );
  t.equal(documentedFields('no-such-command'), undefined);
});

t.test('lazy --fields: implies --json, picks per row, refuses an unknown field before acting', async (t) => {
  const sb = sandbox('lazy-fields');
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const created = await l('create', 'pick me', '--accept', 'done', '--fields', 'task.id,task.status');
  t.equal(created.code, 0, created.stderr);
  const id = JSON.parse(created.stdout).task.id;
  t.same(JSON.parse(created.stdout), { task: { id, status: 'backlog' } }, '--fields alone prints JSON');
  t.same(JSON.parse((await l('list', '--fields=id,goal')).stdout), [{ id, goal: 'pick me' }], 'each row of a list');
  t.same(
    JSON.parse((await l('list', '--fields', 'id', '--fields', 'goal')).stdout),
    [{ id, goal: 'pick me' }],
    'repeated, as a comma would',
  );
  t.same(JSON.parse((await l('show', id, '--json', '--fields', 'schedule.queued')).stdout), {
    schedule: { queued: false },
  });

  const refused = await l('create', 'never made', '--fields', 'id');
  t.equal(refused.code, 2, 'a usage error');
  t.match(JSON.parse(refused.stdout).error, {
    code: 'usage',
    message: "unknown field 'id': lazy create --json has task",
    details: { field: 'id', known: ['task'] },
  });
  t.same(
    JSON.parse((await l('list', '--fields', 'goal')).stdout),
    [{ goal: 'pick me' }],
    'refused before it acted: no task was created',
  );
  const deep = await l('show', id, '--fields', 'schedule.nope');
  t.equal(deep.code, 2);
  t.match(JSON.parse(deep.stdout).error.message, /^unknown field 'schedule.nope': schedule has queued, priority/);
  const failed = await l('show', 'zzzzzzzz', '--fields', 'id');
  t.equal(failed.code, 3, "a command's own failure keeps its exit code");
  t.equal(JSON.parse(failed.stdout).error.code, 'task_not_found', 'and prints the error document whole');
});
