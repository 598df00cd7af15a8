import { git } from '../core/git.js';
import { ambiguous, notFound, usageError } from '../core/errors.js';
import { isIdPrefix, isTaskId, MIN_PREFIX } from '../core/ids.js';
import { ZERO_OID } from './layout.js';
import { taskRef, TASKS_NS } from '../core/names.js';
import { archivedByPrefix } from './archive/map.js';

// Ref moves go through `git update-ref NEW OLD`: git's own lock file and old-value
// check make it a true compare-and-swap across processes. Invariant: a task ref is
// never moved without the value the writer read. Every lazy ref keeps a reflog, even in
// a repository whose core.logAllRefUpdates predates lazy init, so doctor can restore it.

export type CasResult = 'ok' | 'moved';

/** `old` = null means create-only. */
export async function casRef(
  cwd: string,
  ref: string,
  next: string,
  old: string | null,
  reason: string,
): Promise<CasResult> {
  const args = ['update-ref', '--create-reflog', '-m', reason, ref, next, old ?? ZERO_OID];
  const r = await git(args, { cwd, allowFail: true });
  if (r.code === 0) return 'ok';
  // Lost the race (ref moved, or someone holds git's own ref lock): the caller re-reads.
  if (/cannot lock ref|is at .* but expected|reference already exists|unable to resolve reference/i.test(r.stderr))
    return 'moved';
  await git(args, { cwd }); // rethrows with git's message
  return 'ok';
}

export interface RefTip {
  id: string;
  tip: string;
}

/** One for-each-ref over the task namespace, optionally narrowed by an id prefix. */
export async function listTaskRefs(cwd: string, prefix = ''): Promise<RefTip[]> {
  return parseRefTips(await taskRefsText(cwd, prefix));
}

const FOR_EACH_REF = ['for-each-ref', '--format=%(objectname) %(refname)'];

/** for-each-ref's own text over the task namespace (the listing index fingerprints it). */
export async function taskRefsText(cwd: string, prefix = ''): Promise<string> {
  return (await git([...FOR_EACH_REF, prefix ? `${taskRef(prefix)}*` : TASKS_NS], { cwd })).stdout;
}

/** The same text written to `file` (see GitOptions.stdoutFile); the text itself when the file could not be made. */
export async function taskRefsToFile(cwd: string, file: string): Promise<{ text: string; spilled: boolean }> {
  const r = await git([...FOR_EACH_REF, TASKS_NS], { cwd, stdoutFile: file });
  return { text: r.stdout, spilled: !!r.spilled };
}

export function parseRefTips(text: string): RefTip[] {
  const out: RefTip[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const sp = line.indexOf(' ');
    out.push({ tip: line.slice(0, sp), id: line.slice(sp + 1 + TASKS_NS.length) });
  }
  return out;
}

/** Full id or unique prefix of at least MIN_PREFIX characters → full id. */
export async function resolveTaskId(cwd: string, input: string): Promise<string> {
  const wanted = input.trim().toLowerCase();
  if (!isIdPrefix(wanted)) {
    if (wanted.length < MIN_PREFIX && /^[0-9a-z]+$/.test(wanted)) {
      throw usageError(`task id prefix '${input}' is too short: give at least ${MIN_PREFIX} characters`);
    }
    throw notFound(`no task '${input}'`, { id: input });
  }
  // A full id needs no lookup: reading the ref reports a missing task.
  if (isTaskId(wanted)) return wanted;
  // Archived tasks answer to their prefix too (one shard's map); a live ref and its archived entry are one task.
  const [live, archived] = await Promise.all([listTaskRefs(cwd, wanted), archivedByPrefix(cwd, wanted)]);
  const matches = [...new Set([...live.map((r) => r.id), ...archived])].filter((id) => isTaskId(id));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw notFound(`no task matches '${input}'`, { id: input });
  throw ambiguous(wanted, matches.sort());
}
