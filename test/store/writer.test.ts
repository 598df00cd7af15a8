import t from 'tap';
import { agentSandbox } from '../helpers/agent.js';
import { gitSync } from '../helpers/env.js';
import { plantComments } from '../helpers/plant.js';
import { cleanupAfterSupervisors } from '../helpers/supervisors.js';

// What one task may hold (issue 8, item 10): growing writes stop at the entry limit.

t.test(
  'a task at its entry limit refuses growing writes with exit 4, loses nothing, and can still be closed',
  async (t) => {
    const { sb, l } = await agentSandbox();
    cleanupAfterSupervisors(t, sb);
    const id = await l.create('a long history');
    t.equal((await l('comment', id, '-m', 'first')).code, 0);
    plantComments(sb, id, 4998); // create + first + 4998 = 5000 entries
    const tip = gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();
    const r = await l.json('comment', id, '-m', 'one too many');
    t.equal(r.run.code, 4);
    t.match(r.value.error, {
      code: 'task_full',
      message: /holds 5000 entries; one task holds at most 5000/,
      details: { action: 'comment', status: 'backlog', available_actions: ['close'], entries: 5000, limit: 5000 },
    });
    t.equal(gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim(), tip, 'nothing was written');
    t.equal((await l.json('start', id)).run.code, 4, 'a new turn is refused too');
    t.equal((await l.json('edit', id, '--tag', 'x')).run.code, 0, 'an edit adds no entry and still lands');
    const closed = await l.json('close', id, '-m', 'moved on');
    t.equal(closed.run.code, 0, 'a finishing write still lands');
    t.equal(closed.value.task.status, 'abandoned');
  },
);
