import { sanitizeLine } from '../core/sanitize.js';
import { isReviewTurn } from './review.js';
import type { TaskView } from './fold.js';
import { taskBranch } from '../core/names.js';

// The pull request body: the review package as Markdown, for a forge's PR command
// (LAZY_BODY_FILE) and for `lazy show --markdown`. It lives in model/ because both ops/
// (submit writes the file) and output/ reach it, and it needs nothing but the view.
// Stored text may come from an agent or another clone: controls are escaped, and what
// would break the body's structure (a fence left open, a backtick in a file name, an
// HTML comment never closed) is neutralized; everything else passes through.

type Review = { head?: unknown; base_commit?: unknown; commits?: unknown; changed_files?: unknown; diffstat?: unknown };

const strings = (x: unknown): string[] => (Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []);
const longestRun = (s: string, ch: string) =>
  Math.max(0, ...(s.match(new RegExp(`\\${ch}+`, 'g')) ?? []).map((r) => r.length));

/** One line of text: controls escaped, line breaks folded into spaces. */
export const oneLine = (s: string) => sanitizeLine(s.replace(/\s*[\r\n]+\s*/g, ' ').trim());

/** Inline code whose delimiter is longer than any backtick run inside it. */
export function code(s: string): string {
  const text = oneLine(s);
  const tick = '`'.repeat(longestRun(text, '`') + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${tick}${pad}${text}${pad}${tick}`;
}

/** A fenced block whose fence is longer than any backtick run inside it. */
export function fenced(s: string): string {
  const text = sanitizeLine(s.replace(/\r/g, ''));
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1));
  return `${fence}text\n${text}\n${fence}`;
}

/** Markdown prose as written, with a fence it opens closed again and an unclosed HTML comment disarmed. */
export function prose(s: string): string {
  const lines = sanitizeLine(s.replace(/\r/g, '')).trimEnd().split('\n');
  let open: string | null = null;
  for (const line of lines) {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (!m) continue;
    if (!open) open = m[1]!;
    else if (m[1]![0] === open[0] && m[1]!.length >= open.length && !line.trim().slice(m[1]!.length).trim())
      open = null;
  }
  const text = lines.join('\n').replace(/<!--(?![\s\S]*-->)/g, '&lt;!--');
  return open ? `${text}\n${open}` : text;
}

/** A list item whose continuation lines stay inside the item. */
const item = (s: string) => `- ${prose(s).replace(/\n/g, '\n  ')}`;

export function prBody(v: TaskView): string {
  const t = [...v.turns].reverse().find(isReviewTurn);
  const d = (t?.details ?? {}) as { review?: Review; commands?: unknown; risks?: unknown };
  const r = d.review ?? {};
  const out: string[] = [`## Goal`, '', prose(v.goal)];
  out.push('', '## Acceptance criteria', '');
  out.push(v.acceptance.length ? v.acceptance.map(item).join('\n') : '_none recorded_');
  out.push('', '## Summary', '', t?.content.trim() ? prose(t.content) : '_no review yet_');
  const files = strings(r.changed_files);
  out.push('', '## Changed files', '');
  if (typeof r.head === 'string' && typeof r.commits === 'number')
    out.push(`${r.commits} commit(s) on ${code(taskBranch(v.id))} at ${code(r.head.slice(0, 12))}`, '');
  out.push(files.length ? files.map((f) => `- ${code(f)}`).join('\n') : '_none_');
  if (typeof r.diffstat === 'string' && r.diffstat.trim())
    out.push('', '### Diff stat', '', fenced(r.diffstat.trimEnd()));
  const commands = Array.isArray(d.commands) ? (d.commands as { command?: unknown; exit_code?: unknown }[]) : [];
  out.push('', '## Commands run', '');
  out.push(
    commands.length
      ? commands
          .map(
            (c) => `- ${code(String(c?.command ?? ''))}: exit ${typeof c?.exit_code === 'number' ? c.exit_code : '?'}`,
          )
          .join('\n')
      : '_none reported_',
  );
  const risks = strings(d.risks);
  out.push('', '## Risks', '', risks.length ? risks.map(item).join('\n') : '_none reported_');
  out.push('', '---', '', `lazy task ${code(v.id)}`, '', `Lazy-Task: ${v.id}`);
  return out.join('\n') + '\n';
}
