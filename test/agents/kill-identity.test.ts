import t from 'tap';
import { liveness, identityOf } from '../../lib/core/proc.js';
import { terminateVerified } from '../../lib/agents/supervisor/kill.js';
import { background, exited } from '../helpers/procs.js';

// Only a process whose identity is proven is signalled.

t.test('a process whose identity cannot be proven is left alone', async (t) => {
  const child = background('sleep', ['30'], { detached: true, stdio: 'ignore' });
  t.teardown(() => {
    try {
      process.kill(child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  });
  await new Promise((r) => child.once('spawn', r));
  const real = identityOf(child.pid!);
  t.equal(liveness(real), 'alive');
  const wrongStart = { ...real, start_ticks: (real.start_ticks ?? 0) - 1 };
  t.equal(liveness(wrongStart), 'dead', 'a reused pid with another start time is not our process');
  t.equal((await terminateVerified(wrongStart, 200)).signal, 'none', 'so it is not killed');
  t.equal(
    (await terminateVerified({ ...real, host: 'another-machine' }, 200)).signal,
    'none',
    'nor one recorded on another machine',
  );
  t.equal(liveness(real), 'alive', 'the process survived');
  t.not((await terminateVerified(real, 200)).signal, 'none', 'the verified identity is killed');
  await exited(child);
  t.equal(liveness(real), 'dead');
});
