import t from 'tap';
import { endGroup } from '../../lib/agents/supervisor/kill.js';
import { background, exited } from '../helpers/procs.js';

// endGroup reports the signal that ended the group: SIGKILL only when it was sent.

t.test('a group that goes during the last wait of its grace was ended by SIGTERM', async (t) => {
  const child = background('sleep', ['30'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const gone = exited(child);
  // Alive when endGroup looks first; the grace (0 ms) is over before it looks again, and by then the
  // group is gone: the moment a loaded machine's late timer gives.
  const looks = [true];
  const r = await endGroup(child.pid!, 0, () => looks.shift() ?? false);
  t.equal(r.signal, 'SIGTERM', 'what ended it');
  t.same(await gone, { code: null, signal: 'SIGTERM' }, 'and no SIGKILL was sent');
});

t.test('a group still there after its grace is SIGKILLed, and says so', async (t) => {
  // A shell that ignores SIGTERM, in its own group.
  const child = background('sh', ['-c', "trap '' TERM; echo ready; sleep 30 & wait"], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const gone = exited(child);
  await new Promise((r) => child.stdout.once('data', r)); // the trap is set
  let groupAlive = true;
  void gone.then(() => (groupAlive = false));
  const r = await endGroup(child.pid!, 300, () => groupAlive);
  t.equal(r.signal, 'SIGKILL');
  t.equal((await gone).signal, 'SIGKILL');
});
