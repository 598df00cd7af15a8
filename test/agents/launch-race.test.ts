import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually } from '../helpers/agent.js';

// Launching a turn: of two racing starts one wins, and only it writes the run marker.

t.test('two starts racing: one wins, and its turn stays findable by reconcile', async (t) => {
  const box = await agentSandbox();
  const { sb, l, scenario, invocations } = box;
  t.teardown(sb.cleanup);
  scenario('hang');
  const id = await l.create('race', '--accept', 'done');
  const [a, b] = await Promise.all([l.json('start', id), l.json('start', id)]);
  t.same([a.run.code, b.run.code].sort(), [0, 4], 'exactly one start succeeds');
  const winner = (a.run.code === 0 ? a : b).value.run.id;
  const marker = JSON.parse(readFileSync(join(sb.dir, '.git', 'lazy', 'active', `${id}.json`), 'utf8'));
  t.equal(marker.run, winner, "the loser never touched the winner's marker");
  await eventually(() => invocations().length === 1, 20000, 'the agent');
  await l('stop', id);
});
