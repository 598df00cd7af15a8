import { git } from '../core/git.js';
import { resolveTaskId } from '../store/refs.js';
import type { App } from './app.js';
import { taskRef } from '../core/names.js';

export interface LogLine {
  commit: string;
  parents: string[];
  author: string;
  email: string;
  date: string;
  subject: string;
  op: string | null;
  actor: string | null;
  /** The status before and after this commit (the Lazy-Status trailer); null when it changed none. */
  from: string | null;
  to: string | null;
  host: string | null;
}

/**
 * The trailer reads `new -> backlog`, `a -> b, b -> c` for a commit of several changes, or a
 * bare status on a sync merge: from is the first change's source, to the last one's target.
 */
export function statusChange(trailer: string): { from: string | null; to: string | null } {
  if (!trailer) return { from: null, to: null };
  const steps = trailer.split(',').map((s) => s.split('->').map((x) => x.trim()));
  const from = steps[0]!.length > 1 ? steps[0]![0]! : null;
  return { from: from === 'new' ? null : from, to: steps.at(-1)!.at(-1) || null };
}

const SEP = '\x1f';

/** The task's history straight from `git log` on its ref: one line per commit, merges included. */
export async function taskLog(app: App, idArg: string): Promise<LogLine[]> {
  const id = await resolveTaskId(app.repo.cwd, idArg);
  // exit 3 for a missing task, before git's own error; an archived task's history ends at its archived tip.
  const read = await app.store.read(id);
  const fmt = [
    '%H',
    '%P',
    '%an',
    '%ae',
    '%aI',
    '%s',
    '%(trailers:key=Lazy-Op,valueonly,separator=%x2C)',
    '%(trailers:key=Lazy-Actor,valueonly,separator=%x2C)',
    '%(trailers:key=Lazy-Status,valueonly,separator=%x2C)',
    '%(trailers:key=Lazy-Host,valueonly,separator=%x2C)',
  ].join(SEP);
  const from = read.archived ? read.docs.tip : taskRef(id);
  const r = await git(['log', `--format=${fmt}%x1e`, from], { cwd: app.repo.cwd });
  return r.stdout
    .split('\x1e')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((rec) => {
      const [commit, parents, author, email, date, subject, op, actor, status, host] = rec.split(SEP);
      return {
        commit: commit!,
        parents: parents ? parents.split(' ') : [],
        author: author!,
        email: email!,
        date: date!,
        subject: subject!,
        op: op || null,
        actor: actor || null,
        ...statusChange(status ?? ''),
        host: host || null,
      };
    });
}
