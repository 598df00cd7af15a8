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
  const otherBoot = { ...real, host: 'another-machine', boot_id: 'another-boot' };
  t.equal(liveness(otherBoot), 'unknown', 'one recorded on another machine cannot be judged here');
  t.equal(liveness({ ...real, boot_id: 'another-boot' }), 'dead', 'this host before a reboot: gone');
  t.equal((await terminateVerified(otherBoot, 200)).signal, 'none', 'nor is it killed');
  const noBoot = { ...real, host: 'another-machine', boot_id: null };
  t.equal(liveness(noBoot), 'unknown', 'another host with no boot to compare cannot be judged');
  t.equal((await terminateVerified(noBoot, 200)).signal, 'none', 'so it is left alone');
  const otherNs = { ...real, pid_ns: 'pid:[1]' };
  t.equal((await terminateVerified(otherNs, 200)).signal, 'none', "nor a pid of another pid namespace (a container's)");
  // Issue 27: within this boot and pid namespace a host renamed since (LAZY_HOST changed) is still judged.
  t.equal(liveness({ ...real, host: 'old-name' }), 'alive', 'this boot, pid and start time: alive, whatever the name');
  t.equal(liveness(real), 'alive', 'the process survived');
  t.not((await terminateVerified(real, 200)).signal, 'none', 'the verified identity is killed');
  await exited(child);
  t.equal(liveness(real), 'dead');
});
