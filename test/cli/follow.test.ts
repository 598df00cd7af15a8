import t from 'tap';
import { agentSandbox } from '../helpers/agent.js';

// The CLI contract of --follow (issue 13): the built binary, a real process, ends with wait's
// exit code, and its stdout is the readable stream, never the agent's raw JSON.

t.test('lazy start --follow, a real process: readable lines, then exit 4 after the breaker, like wait', async (t) => {
  const box = await agentSandbox({ adapter: 'claude' });
  t.teardown(box.sb.cleanup);
  box.scenario('ran-commands-rate-limit,crash');
  const id = await box.l.create('fail, then crash every time', '--accept', 'done');
  const r = await box.l.spawn('start', id, '--follow');
  t.equal(r.code, 4, r.stderr);
  t.match(r.stderr, new RegExp(`task ${id} ended interrupted`));
  t.match(r.stdout, /^\$ npm run lint$/m, 'the commands, readable');
  t.match(r.stdout, /^⟳ API rate limit \(429\), retry 1\/1 in 0 s$/m, 'the retry the agent reported');
  t.same(
    r.stdout.split('\n').filter((l) => l.startsWith('{')),
    [],
    'no raw JSON',
  );
  t.equal((await box.l.spawn('wait', id)).code, 4, "wait's own exit code, the same");
});
