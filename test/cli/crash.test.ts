import t from 'tap';
import { sandbox, cli, gitSync, LAZY } from '../helpers/env.js';
import { background } from '../helpers/procs.js';
import { seeded } from '../helpers/seed.js';

// A writer SIGKILLed at random points leaves either the old state or the new one:
// never a torn object, a half-moved ref, or a store doctor rejects.

const { seed, rand, replay } = seeded('CRASH_SEED');
const ROUNDS = 40;

t.test(`SIGKILL at random points (seed ${seed})`, async (t) => {
  t.comment(`crash seed ${seed}; rerun with ${replay}`);
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const id = await l.create('crash me');
  // Kill points spread over how long a write takes on this machine now: a fixed window
  // kills every round on a loaded machine and none on a fast one.
  const started = Date.now();
  t.equal((await l('comment', id, '-m', 'timing')).code, 0);
  let window = Math.max(200, Math.round((Date.now() - started) * 1.3));
  t.comment(`kill window ${window} ms`);
  const attempted: string[] = ['timing'];
  let killed = 0;
  let streak = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const text = `attempt-${i}`;
    attempted.push(text);
    const op = rand() < 0.2 ? ['create', text] : ['comment', id, '-m', text];
    const delay = Math.floor(rand() * window);
    const r = await new Promise<{ code: number | null; signal: string | null }>((res) => {
      const c = background(process.execPath, [LAZY, ...op], { cwd: sb.dir, env: sb.env, stdio: 'ignore' });
      const timer = setTimeout(() => c.kill('SIGKILL'), delay);
      c.on('close', (code, signal) => {
        clearTimeout(timer);
        res({ code, signal });
      });
    });
    if (r.signal === 'SIGKILL') killed++;
    else t.equal(r.code, 0, `round ${i} finished normally`);
    // The machine got slower: five kills in a row widen the window.
    streak = r.signal === 'SIGKILL' ? streak + 1 : 0;
    if (streak === 5) {
      window = Math.round(window * 1.5);
      streak = 0;
    }
    const after = await l.json('show', id);
    t.equal(after.run.code, 0, `round ${i}: the task is readable after the kill at ${delay} ms`);
  }
  t.ok(killed > 5, `many rounds were killed mid-flight (${killed}/${ROUNDS})`);
  const v = (await l.json('show', id)).value;
  const contents = v.turns.map((x: any) => x.content);
  t.ok(contents.length > 1, `some writes landed before or despite the kills (${contents.length - 1})`);
  t.equal(new Set(contents).size, contents.length, 'no entry was applied twice');
  t.ok(
    contents.every((c: string) => attempted.includes(c)),
    'every entry is one that was attempted',
  );
  const commits = Number(gitSync(sb.dir, sb.env, ['rev-list', '--count', `refs/lazy/tasks/${id}`]).trim());
  t.equal(commits, contents.length + 1, 'one commit per surviving mutation');
  const listed = await l.json('list', '--all');
  t.equal(listed.run.code, 0);
  t.equal(listed.run.stderr, '', 'no unreadable task');
  const doctor = await l.json('doctor');
  t.equal(doctor.run.code, 0, 'doctor passes');
  t.equal(doctor.value.healthy, true);
  t.same(
    doctor.value.findings.filter((f: any) => f.level === 'error'),
    [],
  );
  const fsck = gitSync(sb.dir, sb.env, ['fsck', '--no-dangling', '--connectivity-only']);
  t.notMatch(fsck, /missing|broken|corrupt/i, 'git fsck finds every task object intact');
});
