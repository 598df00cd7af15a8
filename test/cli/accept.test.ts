import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, reviewed } from '../helpers/agent.js';
import { gitSync, ROOT, SLOW_ACCEPT } from '../helpers/env.js';
import { background } from '../helpers/procs.js';

// The CLI contract of accept that needs real processes: two accepts of one task started at
// once, each its own process, merge exactly once. The behaviour of each step is tested
// in-process in test/ops/accept.test.ts; real SIGKILLs in test/cli/accept-crash.test.ts.

t.test('two concurrent accepts merge exactly once', async (t) => {
  const box = await agentSandbox();
  const { sb } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  // Slowed steps keep the first accept under the lock while the second starts.
  const run = () =>
    new Promise<{ code: number | null; out: string }>((res) => {
      const c = background(process.execPath, [SLOW_ACCEPT, '500', 'accept', id, '--yes', '--json'], {
        cwd: sb.dir,
        // The second waits on the lock for the whole of the first: not the 15 s default on a loaded machine.
        env: { ...sb.env, LAZY_LOCK_TIMEOUT_MS: '120000' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      c.stdout.on('data', (d) => (out += d));
      c.on('close', (code) => res({ code, out }));
    });
  const done = await Promise.all([run(), run()]);
  const reports = done.map((r) => ({ code: r.code, value: JSON.parse(r.out) }));
  const merged = reports.filter((r) => r.code === 0 && r.value.already_accepted === false);
  t.equal(merged.length, 1, 'exactly one accept merged');
  // The other waited for the lock and reports the merge; on a machine so loaded that it
  // started only after the first had finished, it is refused like any accept of a complete task.
  const other = reports.find((r) => r !== merged[0])!;
  if (other.code === 0) t.equal(other.value.already_accepted, true, 'the second reports it was already accepted');
  else t.same([other.code, other.value.error.details.status], [4, 'complete'], 'the second found it complete');
  const merges = gitSync(sb.dir, sb.env, ['log', '--format=%s', 'main'])
    .split('\n')
    .filter((s) => s.startsWith('Accept task'));
  t.equal(merges.length, 1, 'one squash commit');
});

t.test('the pause between steps is an option of the port only: the built CLI reads no environment hook', async (t) => {
  const bundle = readFileSync(join(ROOT, 'dist', 'cli.cjs'), 'utf8');
  t.notMatch(bundle, /PHASE_DELAY|STEP_DELAY/, 'no test hook in the shipped code');
  t.match(bundle, /stepDelayMs:\s*0\b/, 'the real port never pauses');
});
