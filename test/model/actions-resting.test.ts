import t from 'tap';
import { agentSandbox } from '../helpers/agent.js';
import { env, RESTING, walkResting } from '../helpers/lifecycle-walk.js';

t.jobs = 4;

// available_actions is exact: in every reachable status, every listed action succeeds given
// valid arguments, and every other one is refused with exit 4. This file walks the first half of
// the resting states; actions-lifecycle.test.ts walks the rest and the live ones.

t.test(
  'every listed action succeeds and every other one exits 4, in the first half of the resting states',
  async (t) => {
    const box = await agentSandbox({ settings: { protected: 'config/**' } });
    t.teardown(box.sb.cleanup);
    const e = env(box);
    await Promise.all(RESTING[0].map((s) => walkResting(t, e, s)));
  },
);
