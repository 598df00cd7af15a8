import type { TaskView } from '../../model/fold.js';
import { casRef } from '../../store/refs.js';
import { parseCommit } from '../../store/objects.js';
import { ObjectWriter } from '../../store/writer.js';
import {
  readSummaries,
  rowFromSummary,
  summaryKey,
  summaryLines,
  summaryTrailer,
} from '../../store/listing/summary.js';
import { toTuple } from '../../store/listing/rows.js';
import { taskRef } from '../../core/names.js';
import type { Pass } from './pass.js';

// Task tips without a summary of this release's key (written by a release before it, or under another index version):
// the first list of a clone folds them, which is correct, only slower. A tip whose summary is not its fold would be a
// bug: the index would list what the documents do not say. --fix gives both a summary commit: the tip's own tree,
// status-neutral, its message derived from the documents alone (a fixed author, the tip's date), so two clones fixing
// the same tip write the very same commit, and a teammate's pull sees one fast-forward, never a merge.

const SUMMARIZER = { name: 'lazy', email: 'lazy@summary.invalid' };
/** Findings name this many tasks at most: at 100,000 old tasks, one finding, not 100,000. */
const NAMED = 20;

export async function repairSummaries(p: Pass, views: TaskView[]): Promise<void> {
  const found = await readSummaries(p.app.repo.cwd);
  const missing: TaskView[] = [];
  const wrong: TaskView[] = [];
  for (const v of views) {
    const s = found.get(v.id);
    // Moved since it was read, or too long to carry one: nothing to say.
    if (!s || s.tip !== v.tip || summaryTrailer(v) === null) continue;
    if (!s.value.startsWith(`${summaryKey()} `)) {
      missing.push(v);
      continue;
    }
    const row = rowFromSummary(v.id, v.tip, s.value);
    if (!row || JSON.stringify(toTuple(row)) !== JSON.stringify(toTuple(v))) wrong.push(v);
  }
  if (p.fix) {
    const done = await summarize(p, [...wrong, ...missing]);
    if (done.length) p.fixed.push(`wrote the summary of ${done.length} task(s) (${names(done)})`);
    const left = new Set(done);
    // Fixed ones are not findings; one that moved meanwhile still is.
    report(
      p,
      missing.filter((v) => !left.has(v.id)),
      wrong.filter((v) => !left.has(v.id)),
    );
  } else report(p, missing, wrong);
}

const names = (ids: string[]) => ids.slice(0, NAMED).join(', ') + (ids.length > NAMED ? ', …' : '');

function report(p: Pass, missing: TaskView[], wrong: TaskView[]): void {
  if (wrong.length)
    p.findings.push({
      level: 'error',
      code: 'summary_wrong',
      message:
        `${wrong.length} task(s) carry a summary their documents do not fold to (${names(wrong.map((v) => v.id))}); ` +
        'lazy doctor --fix writes the right one',
      details: { tasks: wrong.map((v) => v.id) },
    });
  if (missing.length)
    p.findings.push({
      level: 'info',
      code: 'summary_missing',
      message:
        `${missing.length} task(s) carry no summary of this release (${names(missing.map((v) => v.id))}): a clone's ` +
        'first list reads their documents instead; each gains one when next written, or lazy doctor --fix writes it',
      details: { tasks: missing.map((v) => v.id) },
    });
}

/** One status-neutral commit per task, by compare-and-swap from the tip read: a task that moved meanwhile is left. */
async function summarize(p: Pass, views: TaskView[]): Promise<string[]> {
  const { repo, store } = p.app;
  const w = new ObjectWriter(repo.commonDir);
  const done: string[] = [];
  for (const v of views) {
    const c = await store.reader.objects.read(v.tip);
    if (!c) continue;
    const tip = parseCommit(c.data);
    const when = Number(/ (\d+) [+-]\d{4}$/.exec(tip.committer)?.[1] ?? 0);
    const sig = { ...SUMMARIZER, timestamp: when, timezoneOffset: 0 };
    const message = [
      `lazy: summary ${v.id} (system)`,
      '',
      `Lazy-Task: ${v.id}`,
      'Lazy-Op: summary',
      'Lazy-Actor: system',
      ...summaryLines(v),
      '',
    ].join('\n');
    const next = await w.writeCommit(tip.tree, { parents: [v.tip], message, author: sig, committer: sig });
    if ((await casRef(repo.cwd, taskRef(v.id), next, v.tip, `lazy doctor: summary ${v.id}`)) === 'ok') done.push(v.id);
  }
  return done;
}
