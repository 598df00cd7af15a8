import t from 'tap';
import { sandbox } from '../helpers/env.js';
import { runRecord, workingTask } from '../helpers/outcome-run.js';
import { MAX_DOCUMENT_BYTES } from '../../lib/store/yaml.js';
import { applyOutcome, outcomeText } from '../../lib/agents/supervisor/outcome/index.js';
import { fitOutcome } from '../../lib/agents/supervisor/fit.js';
import type { RunRecord } from '../../lib/agents/runs.js';
import type { Outcome } from '../../lib/agents/supervisor/outcome/types.js';

// Issue 27: what an agent reports is stored in the turn that records its run. A person's text over
// the limit is refused; an agent's cannot be (the turn must be recorded), so it is cut to fit, and
// the record says so. Recorded here through the store's own write protocol, against a real ref.

const RUN = 'r0000001';

const working = (sb: ReturnType<typeof sandbox>) => workingTask(sb, RUN, 'a long report', (f) => t.teardown(f));
const rec = (id: string): RunRecord => runRecord(id, RUN);

/** Short lines are what YAML grows most: each one of a block is indented. */
const lines = (bytes: number) => 'ok\n'.repeat(Math.floor(bytes / 3));

t.test("an agent's report too large for one document is cut to fit, and the turn is recorded", async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const { id, store } = await working(sb);
  // All within the envelope schema's limits (summary 64 KiB, 200 risks of 4 KiB, 1000 commands of 8 KiB).
  const o: Outcome = {
    run: RUN,
    task: id,
    kind: 'completed',
    ended_at: new Date().toISOString(),
    attempts: 1,
    summary: lines(64 * 1024),
    risks: Array.from({ length: 200 }, () => lines(4096)),
    commands: Array.from({ length: 1000 }, (_, i) => ({ command: `step ${i}\n${lines(8000)}`, exit_code: 0 })),
    review: {
      head: 'a'.repeat(40),
      base_commit: 'b'.repeat(40),
      commits: 1,
      changed_files: Array.from({ length: 50_000 }, (_, i) => `src/generated/module-${i}.ts`),
      diffstat: lines(2 * 1024 * 1024),
      auto_commit: null,
    },
  };
  await store.mutate(id, 'turn', (d) => applyOutcome(d, rec(id), o), { actor: 'system' });
  const v = await store.view(id);
  t.equal(v.status, 'blocked', 'the turn ended and the task reads');
  const turn = v.turns.at(-1)!;
  t.equal(turn.run, RUN);
  t.match(
    turn.content,
    new RegExp(
      `\\[lazy shortened this report to fit a stored document \\(${MAX_DOCUMENT_BYTES} bytes\\): \\d+ text\\(s\\) cut`,
    ),
  );
  t.match(turn.details, {
    risks: [/^ok\n/],
    review: { head: 'a'.repeat(40), base_commit: 'b'.repeat(40) },
  });
  const risks = turn.details!.risks as string[];
  t.match(risks.at(-1), /^… \[\d+ more left out by lazy\]$/, 'a cut list says how many it left out');
  t.ok((turn.details!.commands as unknown[]).length < 1000, 'commands were left out');
  t.match(turn.details!.summary, /… \[cut by lazy: \d+ of 65535 bytes kept\]/, 'a cut text says how much it kept');
});

t.test('a report that fits is stored as it was', async (t) => {
  const o: Outcome = {
    run: RUN,
    task: 't0000001',
    kind: 'completed',
    ended_at: '2026-01-01T00:00:00.000Z',
    attempts: 1,
    summary: lines(60 * 1024),
    risks: Array.from({ length: 20 }, () => lines(4096)),
  };
  t.equal(fitOutcome(o, outcomeText), o, 'the same outcome, untouched');
});
