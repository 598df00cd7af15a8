import t from 'tap';
import { agentSandbox } from '../helpers/agent.js';

// Issue 9, "Feedback and comments": comments reach the agent's next prompt.

t.test('comments reach the next prompt, each exactly once', async (t) => {
  const { sb, l, invocations, scenario, gate } = await agentSandbox();
  t.teardown(sb.cleanup);
  const open = gate(); // the first turn runs until the comment below is made
  scenario('slow-succeed,succeed,succeed');
  const id = await l.create('build the thing', '--accept', 'it works');
  t.equal((await l('comment', id, '-m', 'before start: use tabs')).code, 0);
  await l('start', id);
  t.equal((await l('comment', id, '-m', 'while working: the API key is in .env.example\nsecond line')).code, 0);
  t.equal((await l.json('show', id)).value.status, 'working', 'the comment was made while the turn ran');
  open();
  await l('wait', id, '--timeout', '30');
  t.match(invocations()[0]!.prompt, /Comments from the human since your last turn \(1\)[\s\S]*before start: use tabs/);
  t.notOk(invocations()[0]!.prompt.includes('while working'), 'a comment made after a launch is not in that prompt');

  await l('unblock', id, '-m', 'next round');
  await l('wait', id, '--timeout', '30');
  const p2 = invocations()[1]!.prompt;
  t.ok(
    p2.includes('while working: the API key is in .env.example\nsecond line'),
    'the comment made while working is in the next prompt verbatim',
  );
  t.match(p2, /comment #\d+ by human Ada Lovelace/, 'marked as a human comment');
  t.notOk(p2.includes('before start'), 'an already delivered comment is not repeated');

  await l('unblock', id, '-m', 'third round');
  await l('wait', id, '--timeout', '30');
  t.notOk(invocations()[2]!.prompt.includes('Comments from the human'), 'no new comments: no comment block');
});
