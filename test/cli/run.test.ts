import t from 'tap';
import { join } from 'node:path';
import { agentSandbox, eventually, reviewed } from '../helpers/agent.js';
import { gitSync, LAZY } from '../helpers/env.js';
import { background, exited } from '../helpers/procs.js';

// `lazy run <id> -- <command…>` as a person runs it: the real binary, its output passed through, its exit status the
// command's, and the run on the record as a human turn.

t.test("the command's output passes through and its status is lazy's; the run is a human command turn", async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const { l } = box;
  const id = await reviewed(box);
  const r = await l.spawn('run', id, '--', 'sh', '-c', 'echo to-out; echo to-err >&2; exit 3');
  t.equal(r.code, 3, "the command's exit status");
  t.equal(r.stdout, 'to-out\n', 'its stdout on stdout, nothing else there');
  t.match(r.stderr, /^to-err\n/, 'its stderr on stderr');
  t.match(r.stderr, new RegExp(`lazy: ${id}: exit 3 in [0-9.]+ s, recorded`), 'a note of the record on stderr');
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'blocked', 'no status changed');
  const turn = v.turns.at(-1);
  t.match(turn, { role: 'human', kind: 'command', actor: 'human' });
  t.match(turn.details, {
    command: "sh -c 'echo to-out; echo to-err >&2; exit 3'",
    exit_code: 3,
    signal: null,
    output_tail: 'to-out\nto-err',
  });
  t.type(turn.details.duration_ms, 'number');
  t.equal(turn.details.head, gitSync(box.sb.dir, box.sb.env, ['rev-parse', `lazy/${id}`]).trim(), 'the head it ran on');
  t.ok(v.available_actions.includes('run'), 'run is listed on a blocked task');
  t.same(
    v.reviewer_commands.map((c: any) => [c.command, c.exit_code, c.actor]),
    [["sh -c 'echo to-out; echo to-err >&2; exit 3'", 3, 'human']],
    "show's reviewer_commands",
  );
  const log = await l('log', id);
  t.match(log.stdout, new RegExp(`lazy: run ${id} \\(human\\)`), 'lazy log shows the commit');

  await t.test('a signal: 128+n, recorded as the signal', async (t) => {
    const r = await l.spawn('run', id, '--', 'sh', '-c', 'kill -TERM $$');
    t.equal(r.code, 143, '128 + SIGTERM');
    const d = (await l.json('show', id)).value.turns.at(-1).details;
    t.match(d, { exit_code: null, signal: 'SIGTERM' });
  });

  await t.test('the tail is bounded and printable', async (t) => {
    const script = 'i=0; while [ $i -lt 300 ]; do printf "\\033[31mline %s\\001 %0100d\\n" $i 0; i=$((i+1)); done';
    const r = await l.spawn('run', id, '--', 'sh', '-c', script);
    t.equal(r.code, 0);
    t.equal(r.stdout.split('\n').length, 301, 'all of it passed through');
    const tail: string = (await l.json('show', id)).value.turns.at(-1).details.output_tail;
    t.ok(Buffer.byteLength(tail) <= 4096, `at most 4 KiB kept (${Buffer.byteLength(tail)})`);
    const lines = tail.split('\n');
    t.ok(lines.length <= 40, 'at most 40 lines');
    t.match(lines.at(-1), /^line 299\\u0001 0+$/, 'the end, colour dropped, a control character escaped');
    t.notOk(/\u001b/.test(tail), 'no escape sequence stored');
  });

  await t.test('--json: the document on stdout, the output on stderr, exit 0 once recorded', async (t) => {
    const r = await l.spawn('run', id, '--json', '--', 'sh', '-c', 'echo hi; exit 5');
    t.equal(r.code, 0);
    const doc = JSON.parse(r.stdout);
    t.match(doc, { command: ['sh', '-c', 'echo hi; exit 5'], exit_code: 5, signal: null, output_tail: 'hi' });
    t.equal(doc.task.turns.at(-1).kind, 'command');
    t.match(r.stderr, /^hi\n/);
  });

  await t.test("the command's own --json and --help are its own", async (t) => {
    const r = await l.spawn('run', id, '--', 'echo', '--json', '--help');
    t.equal(r.code, 0);
    t.equal(r.stdout, '--json --help\n');
  });

  await t.test('a missing program: 127, recorded', async (t) => {
    const r = await l.spawn('run', id, '--', 'no-such-program-here');
    t.equal(r.code, 127);
    t.match(r.stderr, /no-such-program-here: command not found/);
    t.match((await l.json('show', id)).value.turns.at(-1).details, { exit_code: 127 });
  });

  await t.test('a reader that goes away (| head) ends the command as a pipe would', async (t) => {
    const child = background('sh', ['-c', `"${process.execPath}" "${LAZY}" run ${id} -- yes | head -n 2`], {
      cwd: box.sb.dir,
      env: box.sb.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const hang = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const end = await exited(child);
    clearTimeout(hang);
    t.equal(end.code, 0, 'the pipeline ended by itself');
    t.equal(out, 'y\ny\n');
    t.match((await l.json('show', id)).value.turns.at(-1).details, {
      command: 'yes',
      exit_code: null,
      signal: 'SIGPIPE',
    });
  });

  await t.test('a cleaned-up worktree is made again from the task branch', async (t) => {
    const wt = join(box.sb.dir, '.lazy', 'worktrees', id);
    gitSync(box.sb.dir, box.sb.env, ['worktree', 'remove', '--force', wt]);
    const r = await l.spawn('run', id, '--', 'git', 'rev-parse', '--abbrev-ref', 'HEAD');
    t.equal(r.code, 0, r.stderr);
    t.equal(r.stdout, `lazy/${id}\n`, 'it ran on the task branch, in its worktree');
  });
});

t.test('refused with exit 4: a working task, a task never started', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const { l } = box;
  const fresh = await l.create('never started', '--accept', 'done');
  const r = await l.spawn('run', fresh, '--', 'true');
  t.equal(r.code, 4);
  t.match(r.stderr, /never started/);
  const j = await l.spawn('run', fresh, '--json', '--', 'true');
  t.equal(j.code, 4);
  t.match(JSON.parse(j.stdout).error, { code: 'action_not_allowed' });
  t.notOk((await l.json('show', fresh)).value.available_actions.includes('run'), 'not listed without a branch');

  box.scenario('hang');
  const id = await l.create('busy', '--accept', 'done');
  await l('start', id);
  await eventually(async () => (await l.json('show', id)).value.status === 'working', 30_000, 'working');
  const w = await l.spawn('run', id, '--', 'true');
  t.equal(w.code, 4, 'refused while a turn runs');
  t.match(w.stderr, /cannot run a task that is working/);
  t.notOk((await l.json('show', id)).value.available_actions.includes('run'));
  await l('stop', id);
});
