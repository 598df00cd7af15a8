import t from 'tap';
import { lazy, sandbox } from '../helpers/env.js';

t.test('lazy demo runs the whole loop offline and ends with an accept', async (t) => {
  const sb = sandbox('lazy-demo');
  t.teardown(sb.cleanup);
  const r = await lazy(['demo', '--json'], { cwd: sb.home, env: sb.env, timeoutMs: 120_000 });
  t.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  const titles = report.steps.map((s: any) => s.title);
  t.ok(titles.includes('Wait for the turn, then review it'));
  t.ok(titles.includes('Ask for changes'));
  t.equal(titles.at(-4), 'Accept: squash-merge into main');
  const review = report.steps.find((s: any) => s.title === 'Wait for the turn, then review it').output;
  t.match(review, /Review \(turn #2, revision 0\)/, 'the review package is shown');
  t.match(review, /commands run:\n\s+ok\s+node -e/, 'with the command the agent ran and its result');
  t.match(
    report.steps.find((s: any) => s.title === 'main now holds the work').output,
    /Accept task [0-9a-z]{8}: add a greeting function/,
  );
  t.equal(report.kept, false);
});
