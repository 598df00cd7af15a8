import t from 'tap';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitSync } from '../helpers/env.js';
import { team } from '../helpers/team.js';
import { openRepo } from '../../lib/core/repo.js';
import { withEnv } from '../../lib/core/env.js';
import { casPush } from '../../lib/fleet/claim/push.js';
import { LazyError } from '../../lib/core/errors.js';

// The compare-and-swap push: every ref moves only if the remote holds its expected value, all or
// none; the verdict names the ref that did not (not the atomic fallout), and a refusal for any
// other reason (a hook) is an error, not a lost race.

t.test('an atomic push moves every ref or none, and names the ref whose expectation failed', async (t) => {
  const tm = team(1, 'lazy-cas');
  t.teardown(tm.cleanup);
  const sb = tm.clones[0]!;
  const repo = await withEnv(sb.env, () => openRepo(sb.dir));
  const head = gitSync(sb.dir, sb.env, ['rev-parse', 'HEAD']).trim();
  gitSync(sb.dir, sb.env, ['commit', '-q', '--allow-empty', '-m', 'two']);
  const next = gitSync(sb.dir, sb.env, ['rev-parse', 'HEAD']).trim();
  const push = (u: Parameters<typeof casPush>[2]) => withEnv(sb.env, () => casPush(repo, 'origin', u));
  const remoteRef = (ref: string) => {
    try {
      return gitSync(tm.remote, process.env, ['rev-parse', '--verify', '-q', ref]).trim();
    } catch {
      return null;
    }
  };

  t.same(
    await push([
      { ref: 'refs/lazy/tasks/x', next: head, expected: null },
      { ref: 'refs/lazy/leases/x', next: head, expected: null },
    ]),
    { ok: true, stale: [], refused: [] },
    'both created',
  );
  const lost = await push([
    { ref: 'refs/lazy/tasks/x', next, expected: head },
    { ref: 'refs/lazy/leases/x', next, expected: null },
  ]);
  t.equal(lost.ok, false);
  t.same(lost.stale, ['refs/lazy/leases/x'], 'the lease that exists is the cause');
  t.equal(remoteRef('refs/lazy/tasks/x'), head, 'the other ref did not move either');
  const gone = await push([{ ref: 'refs/lazy/leases/x', next: null, expected: next }]);
  t.same(gone.stale, ['refs/lazy/leases/x'], 'a deletion with the wrong expectation is refused');
  t.equal(remoteRef('refs/lazy/leases/x'), head);
  t.ok((await push([{ ref: 'refs/lazy/leases/x', next: null, expected: head }])).ok, 'the right one deletes');
  t.equal(remoteRef('refs/lazy/leases/x'), null);

  const hook = join(tm.remote, 'hooks', 'pre-receive');
  writeFileSync(hook, '#!/bin/sh\necho "no fleet here" >&2\nexit 1\n');
  chmodSync(hook, 0o755);
  const refused = await push([{ ref: 'refs/lazy/leases/y', next: head, expected: null }]).catch((e: unknown) => e);
  t.ok(refused instanceof LazyError && refused.code === 'push_failed', 'a hook refusal is an error (exit 7)');
  t.equal((refused as LazyError).exitCode, 7);
});
