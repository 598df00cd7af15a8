import t from 'tap';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { sandbox, cli } from '../helpers/env.js';

// The per-task writer lock: a lock whose owner is verifiably dead is taken over at once.

t.test('a lock left by a dead writer is taken over at once, not after it goes stale', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb, { LAZY_LOCK_TIMEOUT_MS: '300' });
  const id = await l.create('x');
  const dir = join(sb.dir, '.git', 'lazy', 'locks');
  mkdirSync(join(dir, `${id}.lock`), { recursive: true });
  const inode = statSync(join(dir, `${id}.lock`)).ino;
  writeFileSync(
    join(dir, `${id}.owner.json`),
    JSON.stringify({ host: hostname(), boot_id: null, pid: 999999, start_ticks: 1, inode }),
  );
  const r = await l.json('comment', id, '-m', 'after a crashed writer');
  t.equal(r.run.code, 0, 'the fresh lock of a dead owner does not block for its 5 s staleness');
  t.equal(r.value.task.turns.length, 1);
});
