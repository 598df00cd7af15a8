import t from 'tap';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/env.js';
import { team } from '../helpers/team.js';

// What the remote says when it refuses a push reaches the user as git said it.

t.test('a push the remote refuses exits non-zero with git\'s reason, not "someone pushed first"', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  await a.create('blocked by policy');
  const hook = join(tm.remote, 'hooks', 'pre-receive');
  writeFileSync(hook, '#!/bin/sh\necho "policy: no pushes today" >&2\nexit 1\n');
  chmodSync(hook, 0o755);
  const p = await a.json('push');
  t.equal(p.run.code, 7, 'a refusal by the remote is exit 7');
  t.match(
    p.value.rejected[0].reason,
    /refused by the remote \(git: \[remote rejected\] \(pre-receive hook declined\)\)/,
  );
  t.notMatch(p.value.rejected[0].reason, /pull/, 'no advice to pull');
  const s = await a.json('sync');
  t.equal(s.run.code, 7);
  t.equal(s.value.rounds, 1, 'a refusal is not retried as a race');
});
