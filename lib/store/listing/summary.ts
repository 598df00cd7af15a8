import { nodeCrypto } from '../../core/crypto.js';
import { git } from '../../core/git.js';
import { TASKS_NS } from '../../core/names.js';
import type { RefTip } from '../refs.js';
import { tableSignature } from '../../model/table.js';
import { fromTuple, toTuple, type LeanRow, type Tuple } from './rows.js';

// The summary a task commit carries in its message: the listing index's row for the task as it reads after that
// commit, so the first index of a clone is one read of the tip commits, not a fold of every task. Invariant: the YAML
// documents stay the truth. A summary is only ever the fold of the commit's own tree, written by the writer that
// folded it, and read only under the key it was written with: another key (another store format, row version or
// transition table), no summary, or one that does not parse, and the task is folded as before.
// Other readers (an archived task's tip): summaryValueOf (a raw message) or readSummaries (refs under a namespace),
// then rowFromSummary; summaryLines writes them. docs/storage.md says what the lines are.

/** The store's format: 2 since task commits carry the summary trailers (1: the releases before, none). */
export const STORE_FORMAT = 2;
/** The machine trailer's name. */
export const SUMMARY_TRAILER = 'Lazy-Summary';
/** Past this many bytes (a long goal, an attention with a long question) a commit carries no summary: it is folded. */
export const SUMMARY_MAX = 4096;

/**
 * The row's own version: bumped when the tuple's fields or what they mean change (the index's VERSION is bumped with
 * it), and only then. The index's VERSION also moves for its files' layout, which no commit message should follow:
 * every summary on record would read as missing, a first list would fold everything again, and two releases would
 * write different merge commits of the same pair.
 */
export const SUMMARY_ROW = 1;

let key: string | undefined;
/** The key a summary is written and read under: the store's format, the row's version and the transition table's. */
export const summaryKey = () =>
  (key ??= `${STORE_FORMAT}.${nodeCrypto()
    .createHash('sha1')
    .update(`${SUMMARY_ROW}.${tableSignature()}`)
    .digest('hex')
    .slice(0, 10)}`);

/** The row without its tip (a commit cannot name itself): the index's tuple from the id on. */
type Summary = [string, ...(Tuple extends [string, string, ...infer R] ? R : never)];

// JSON leaves DEL, the C1 controls and the two Unicode line breaks raw: escaped, `git log` in a terminal shows them
// as text, and the line still parses to the same string.
const RAW = /[\u007f-\u009f\u2028\u2029]/g;
const escapeRaw = (s: string) => s.replace(RAW, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The `Lazy-Summary` value for the task as `view` reads (`<key> <json>`); null when it would pass SUMMARY_MAX. */
export function summaryTrailer(view: LeanRow): string | null {
  const [id, , ...rest] = toTuple(view);
  const value = `${summaryKey()} ${escapeRaw(JSON.stringify([id, ...rest] satisfies Summary))}`;
  return Buffer.byteLength(value) > SUMMARY_MAX ? null : value;
}

/** The row a `Lazy-Summary` value gives for task `id` at commit `tip`; undefined unless it is one of this key's. */
export function rowFromSummary(id: string, tip: string, value: string): LeanRow | undefined {
  const k = summaryKey();
  if (value.length <= k.length || !value.startsWith(k) || value[k.length] !== ' ') return undefined;
  try {
    return fromSummary(id, tip, JSON.parse(value.slice(k.length + 1)));
  } catch {
    return undefined;
  }
}

/** The row of a parsed summary, when it has the shape one has and names this task. */
function fromSummary(id: string, tip: string, s: unknown): LeanRow | undefined {
  if (!Array.isArray(s) || s.length !== 11 || s[0] !== id) return undefined;
  const [, status, created, updated, goal, tags, , , , mask] = s as Summary;
  if (typeof status !== 'string' || typeof created !== 'string' || typeof updated !== 'string') return undefined;
  if (typeof goal !== 'string' || !Array.isArray(tags) || typeof mask !== 'number') return undefined;
  const [, ...rest] = s as Summary;
  return fromTuple([id, tip, ...rest] as Tuple);
}

/**
 * The `Lazy-Summary` value in a raw commit message (its last paragraph, where the trailers are), or undefined: for a
 * reader holding a commit rather than a ref (an archived task's tip). rowFromSummary then checks it.
 */
export const summaryValueOf = (message: string): string | undefined => trailerOf(message, SUMMARY_TRAILER);

/** A trailer's value, read only from the message's last paragraph (text earlier in it, a goal, cannot pose as one). */
export function trailerOf(message: string, key: string): string | undefined {
  const trailers = message.trimEnd();
  const block = trailers.slice(trailers.lastIndexOf('\n\n') + 1);
  const m = new RegExp(`^${key}: (.+)$`, 'm').exec(block);
  return m?.[1]?.trim();
}

const oneLine = (s: string, max: number) => {
  const line = s
    .split('\n', 1)[0]!
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ')
    .trim();
  // Cut by code points: half a surrogate pair is no character.
  return line.length > max ? `${[...line].slice(0, max - 1).join('')}…` : line;
};

/**
 * The summary's trailer lines for a task commit: the few a person reads in `git log` (the goal's first line, tags,
 * parent, attention, the last change's time) and the one lazy reads, `Lazy-Summary` (left out when too long).
 */
export function summaryLines(view: LeanRow): string[] {
  const lines: string[] = [];
  const goal = oneLine(view.goal, 100);
  if (goal) lines.push(`Lazy-Goal: ${goal}`);
  if (view.tags.length) lines.push(`Lazy-Tags: ${oneLine(view.tags.join(', '), 200)}`);
  if (view.parent) lines.push(`Lazy-Parent: ${view.parent}`);
  if (view.attention) lines.push(`Lazy-Attention: ${view.attention.kind}`);
  lines.push(`Lazy-Updated: ${view.updated_at}`);
  const s = summaryTrailer(view);
  if (s !== null) lines.push(`${SUMMARY_TRAILER}: ${s}`);
  return lines;
}

/**
 * One for-each-ref over `ns` (the task refs; an archive's namespace for another reader): each ref's tip and its tip
 * commit's `Lazy-Summary` value as git reads its trailers ('' when none), by the name after `ns`. rowFromSummary
 * gives a value's row.
 */
export async function readSummaries(cwd: string, ns = TASKS_NS): Promise<Map<string, { tip: string; value: string }>> {
  const fmt = `--format=%(objectname) %(refname)%09%(trailers:key=${SUMMARY_TRAILER},valueonly,unfold,separator=%x1f)`;
  const { stdout } = await git(['for-each-ref', fmt, ns], { cwd });
  const found = new Map<string, { tip: string; value: string }>();
  // A ref name holds no control character, so the tab ends it; a summary holds no newline.
  for (const line of stdout.split('\n')) {
    const sp = line.indexOf(' ');
    const tab = line.indexOf('\t', sp);
    if (sp > 0 && tab > sp)
      found.set(line.slice(sp + 1 + ns.length, tab), { tip: line.slice(0, sp), value: line.slice(tab + 1) });
  }
  return found;
}

/** A fresh row taken from its commit's summary: it has no detail until a read that wants it folds the task. */
export const THIN = 'thin' as const;

/**
 * Whether reading the stale tips' summaries beats folding them: many of them (a few fold as fast and leave their
 * detail too), a fair share of the store (a list after a pull of a few thousand: the pull primed their rows already).
 */
export const worthSummaries = (stale: number, total: number) => stale >= 50 && stale * 20 >= total;

/**
 * The rows the tips' summaries give, read by one `git cat-file --batch` of the tip commits, parsed as git writes
 * them. Cheaper than the for-each-ref pass (git 2.39's for-each-ref reads every commit before its first line: half
 * the time again, and nothing to parse meanwhile). A summary counts only in the message's last paragraph (where the
 * writers put the trailers), under this key, naming the task: a tip without one gives no row.
 */
export async function tipSummaries(cwd: string, tips: readonly RefTip[]): Promise<Map<string, LeanRow>> {
  const out = new Map<string, LeanRow>();
  const needle = Buffer.from(`\n${SUMMARY_TRAILER}: ${summaryKey()} `);
  let next = 0;
  let rest: Buffer | undefined;
  const take = (chunk: Buffer) => {
    const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
    const got: { r: RefTip; json: string }[] = [];
    let pos = 0;
    for (let nl; (nl = buf.indexOf(10, pos)) >= 0;) {
      const head = buf.toString('latin1', pos, nl).split(' ');
      const r = tips[next];
      if (head.length !== 3 || !r) {
        (next++, (pos = nl + 1)); // "<oid> missing"
        continue;
      }
      const end = nl + 1 + Number(head[2]);
      if (end + 1 > buf.length) break; // the rest of this object comes with the next chunk
      next++;
      const json = head[0] === r.tip && head[1] === 'commit' ? lastLine(buf, nl + 1, end, needle) : undefined;
      if (json !== undefined) got.push({ r, json });
      pos = end + 1;
    }
    rest = pos < buf.length ? buf.subarray(pos) : undefined;
    parseAll(got, out);
  };
  await git(['cat-file', '--batch', '--buffer'], {
    cwd,
    input: tips.map((t) => `${t.tip}\n`).join(''),
    onStdout: take,
  });
  return out;
}

/**
 * The rest of the line `needle` (a line break and the trailer's start) begins, in the message at buf[start, end), when
 * it is in the last paragraph: no blank line follows it in the message.
 */
function lastLine(buf: Buffer, start: number, end: number, needle: Buffer): string | undefined {
  const at = buf.lastIndexOf(needle, end - needle.length);
  if (at < start) return undefined;
  const blank = buf.indexOf('\n\n', at + 1);
  // The object is followed by cat-file's own line break: a blank line found there is the message's last one.
  if (blank >= 0 && blank < end - 1) return undefined;
  const eol = buf.indexOf(10, at + 1);
  return buf.toString('utf8', at + needle.length, eol < 0 || eol > end ? end : eol);
}

/** One JSON.parse for a chunk's summaries (several times faster than one each); if one spoils it, each alone. */
function parseAll(got: { r: RefTip; json: string }[], out: Map<string, LeanRow>): void {
  let all: unknown[] | undefined;
  try {
    all = JSON.parse(`[${got.map((g) => g.json).join(',')}]`) as unknown[];
  } catch {
    /* one by one below */
  }
  // A value holding a comma-joined pair would shift the rest: then too, each alone (each row still names its task).
  if (all?.length !== got.length) all = undefined;
  for (let i = 0; i < got.length; i++) {
    const { r, json } = got[i]!;
    const row = all ? fromSummary(r.id, r.tip, all[i]) : rowFromSummary(r.id, r.tip, `${summaryKey()} ${json}`);
    if (row) out.set(r.id, row);
  }
}
