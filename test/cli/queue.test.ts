import t from 'tap';
import { sandbox, lazySpawn, cli as inprocCli } from '../helpers/env.js';

// The queue commands from the real binary: the --json shape and the exit codes.

t.test(
  'queue, unqueue, pause, unpause: --json is a {task} per updated task; refusals exit 4, bad input 2',
  async (t) => {
    const sb = sandbox();
    t.teardown(sb.cleanup);
    const run = (...args: string[]) => lazySpawn([...args, '--json'], { cwd: sb.dir, env: sb.env });
    const l = inprocCli(sb);
    const a = await l.create('a', '--accept', 'done');
    const b = await l.create('b', '--accept', 'done');

    const q = await run('queue', a, b.slice(0, 5), '--priority', '2');
    t.equal(q.code, 0);
    t.equal(q.stderr, '');
    const tasks = JSON.parse(q.stdout).map((r: any) => r.task); // one {task} per id named
    t.same(
      tasks.map((v: any) => [v.id, v.status, v.schedule]),
      [a, b].map((id) => [
        id,
        'backlog',
        { queued: true, priority: 2, paused: false, not_before: null, claim: null, held: null },
      ]),
      'one document: the updated tasks, in the order named',
    );
    for (const [action, code] of [
      ['pause', 0],
      ['pause', 4],
      ['unpause', 0],
      ['unpause', 4],
      ['unqueue', 0],
      ['unqueue', 4],
    ] as const) {
      const r = await run(action, a);
      t.equal(r.code, code, `${action} → ${code}`);
      const v = JSON.parse(r.stdout);
      if (code === 0) t.equal(v[0].task.id, a);
      else
        t.match(v, {
          error: {
            code: 'action_not_allowed',
            details: { status: 'backlog', guard: String, available_actions: Array },
          },
        });
    }
    const bad = await run('queue', a, '--priority', 'soon');
    t.equal(bad.code, 2);
    t.equal(JSON.parse(bad.stdout).error.code, 'usage');
    t.equal((await run('pause')).code, 2, 'an id is required');
    const mixed = await run('unqueue', b, 'zzzz');
    t.equal(mixed.code, 3, "the failure's own exit code, after the others were done");
    t.same(JSON.parse(mixed.stdout).error.details.updated, [b]);
    const none = JSON.parse((await lazySpawn(['list', '--queued', '--json'], { cwd: sb.dir, env: sb.env })).stdout);
    t.same(none, [], 'an empty queue is [], never null');
  },
);
