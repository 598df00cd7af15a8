import t, { type Test } from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, ROOT, sandbox } from '../helpers/env.js';
import { eventually } from '../helpers/agent.js';
import { fakeGemini, functionResponses, type FakeGemini, type Reply } from '../helpers/gemini.js';
import { taskBranch } from '../../lib/core/names.js';

// The real Gemini CLI (@google/gemini-cli 0.61.0), offline: a scripted loopback Gemini API
// (GOOGLE_GEMINI_BASE_URL) answers its requests, and lazy drives it as `--agent gemini`. No model
// is named, so gemini's `auto` model first asks its router (a plain generateContent) which model to use.

const GEMINI = join(ROOT, 'node_modules', '.bin', 'gemini');

async function geminiBox(t: Test, script: (req: any, n: number) => Reply | Promise<Reply>) {
  const api = await fakeGemini(script);
  const sb = sandbox('lazy-gemini');
  t.teardown(async () => {
    await sb.cleanup();
    await api.close();
  });
  const l = cli(sb, { GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_API_KEY: 'k-test-offline' });
  t.equal((await l('config', 'set', 'agents.gemini.command', GEMINI)).code, 0);
  return { api, sb, l };
}

/** What gemini printed, for a failure's report: each run's log and the requests it sent. */
function diagnosis(repo: string, api: FakeGemini): string {
  const runs = join(repo, '.git', 'lazy', 'runs');
  const logs = readdirSync(runs).map((r) => {
    const log = join(runs, r, 'output.log');
    return `run ${r}:\n${existsSync(log) ? readFileSync(log, 'utf8').slice(0, 6000) : '(no output.log)'}`;
  });
  return [...logs, `requests: ${api.seen.join(', ')}`].join('\n');
}

const write = {
  functionCall: { name: 'write_file', args: { file_path: 'hello.txt', content: 'hello from gemini\n' } },
};
const writeAgain = {
  functionCall: { name: 'write_file', args: { file_path: 'hello.txt', content: 'hello from gemini\nagain\n' } },
};

t.test(
  "real gemini: a turn writes a file with its own tool, reports through lazy's MCP tools, parks blocked, and unblock resumes the session",
  async (t) => {
    if (!existsSync(GEMINI)) return t.fail('the gemini CLI is not installed');
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    t.teardown(() => release());
    // One gemini run per turn is the cost here: the first turn shows its write tool and lazy's MCP tools
    // (progress while it works, the review from lazy_finish); the second, the resumed session.
    const { api, sb, l } = await geminiBox(t, async (req, n) => {
      const names = (req.tools ?? []).flatMap((x: any) => (x.functionDeclarations ?? []).map((f: any) => f.name));
      const tool = (suffix: string) => names.find((x: string) => x.endsWith(suffix)) ?? `missing:${suffix}`;
      if (n === 0) return { parts: [{ text: 'Writing it.' }, write] };
      if (n === 1)
        return {
          parts: [{ functionCall: { name: tool('lazy_update_progress'), args: { message: 'running   step 3/7' } } }],
        };
      if (n === 2) {
        await released;
        const args = {
          summary: 'Did the steps.',
          risks: ['step 5 is slow'],
          commands: [{ command: 'npm test', exit_code: 0 }],
        };
        return { parts: [{ functionCall: { name: tool('lazy_finish'), args } }] };
      }
      if (n === 3) return { parts: [{ text: 'Wrote hello.txt.' }] };
      // The resumed turn: words, a tool call, then its answer (the result is what it said after the call).
      if (n === 4) return { parts: [{ text: 'Adding it.' }, writeAgain] };
      return { parts: [{ text: 'Added the line.' }] };
    });
    const id = await l.create('write hello.txt', '--accept', 'hello.txt exists');
    t.equal((await l('start', id, '--agent', 'gemini')).code, 0);
    // The progress call's response reaches the stand-in in the request it gates: lazy wrote the progress
    // before it answered that call, so one show sees it while gemini still works (no polling of show).
    const progressed = await eventually(
      () => api.requests[2],
      120_000,
      () => diagnosis(sb.dir, api),
    );
    t.match(functionResponses(progressed)[0]?.name, /lazy_update_progress$/);
    const shown = (await l.json('show', id)).value;
    t.equal(shown.substate?.kind, 'agent', JSON.stringify(shown.substate));
    t.equal(shown.substate?.message, 'running step 3/7');
    release();
    const w = (await l.json('wait', id, '--timeout', '120')).value.task;
    if (w.status !== 'blocked') t.comment(diagnosis(sb.dir, api));
    t.equal(w.status, 'blocked');
    t.equal(w.attention?.kind, 'review');
    t.equal(
      gitSync(sb.dir, sb.env, ['show', `${taskBranch(id)}:hello.txt`]),
      'hello from gemini\n',
      'the file gemini wrote is committed on the task branch',
    );
    t.same(
      functionResponses(api.requests[1]!).map((r) => r.name),
      ['write_file'],
      'gemini sent the write back',
    );
    const finished = functionResponses(api.requests[3]!);
    t.match(finished[0]?.name, /lazy_finish$/);
    t.notMatch(
      JSON.stringify(finished[0]?.response),
      /error/i,
      `lazy_finish was accepted: ${JSON.stringify(finished[0])}`,
    );
    const agentTurn = w.turns.filter((x: any) => x.role === 'agent').at(-1);
    t.equal(agentTurn.content, 'Did the steps.', 'the review summary came from the tool call');
    t.same(agentTurn.details.risks, ['step 5 is slow']);
    const session = agentTurn.details.agent_session_id;
    t.match(session, /^[0-9a-f-]{36}$/, 'the session id from the init line is recorded');
    t.strictSame(agentTurn.details.usage, {
      // gemini's `auto` model asked its router first: its tokens are the run's too.
      input_tokens: 600,
      output_tokens: 45,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    t.notOk(existsSync(join(sb.home, '.gemini', 'settings.json')), "the user's own gemini settings were not written");
    t.notOk(existsSync(join(sb.dir, '.gemini')), 'nor the repository');

    await l('unblock', id, '-m', 'Add a second line.');
    const again = (await l.json('wait', id, '--timeout', '120')).value.task;
    t.equal(again.status, 'blocked');
    const resumed = api.requests[4]!;
    const said = JSON.stringify(resumed.contents);
    t.ok(
      resumed.contents.length >= 5,
      `the resumed turn's first request carries the conversation (${resumed.contents.length} contents)`,
    );
    t.match(said, /hello from gemini/, 'including the earlier tool call');
    t.match(said, /Add a second line\./, 'and the new message');
    const turn2 = again.turns.filter((x: any) => x.role === 'agent').at(-1);
    t.equal(turn2.details.agent_session_id, session, 'the same session continues');
    t.equal(turn2.content, 'Added the line.', 'without lazy_finish, the result is what gemini said last');
    t.equal(gitSync(sb.dir, sb.env, ['show', `${taskBranch(id)}:hello.txt`]), 'hello from gemini\nagain\n');
  },
);

t.test('real gemini: a 401 from the API blocks the task as fatal_auth', async (t) => {
  if (!existsSync(GEMINI)) return t.fail('the gemini CLI is not installed');
  const { api, sb, l } = await geminiBox(t, () => ({
    status: 401,
    error: { code: 401, message: 'API key not valid. Please pass a valid API key.', status: 'UNAUTHENTICATED' },
  }));
  const id = await l.create('anything', '--accept', 'done');
  t.equal((await l('start', id, '--agent', 'gemini')).code, 0);
  const w = (await l.json('wait', id, '--timeout', '120')).value.task;
  if (w.status !== 'blocked') t.comment(diagnosis(sb.dir, api));
  t.equal(w.status, 'blocked');
  t.match(w.attention?.reason, /^fatal_auth: .*API key not valid/);
  const failed = w.turns.filter((x: any) => x.role === 'agent').at(-1);
  t.equal(failed.details.failure_class, 'fatal_auth');
  t.equal(api.requests.length, 1, 'no retry of a fatal class');
});
