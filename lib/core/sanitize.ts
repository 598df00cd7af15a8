// Text intake policy: sanitize and deliver, never reject. Control characters that
// would break argv (NUL) or terminals are re-encoded as printable \uXXXX escapes;
// everything else passes through byte-for-byte.

// C0 except TAB, LF, CR; DEL; C1.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

export interface Sanitized {
  text: string;
  replaced: number;
}

/** One character as its printable JSON-style escape. */
export const uEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

function escapeControls(input: string): Sanitized {
  let replaced = 0;
  const text = input.replace(CONTROL, (ch) => {
    replaced++;
    return uEscape(ch);
  });
  return { text, replaced };
}

/** For short single-line fields (goal, tags, paths): escaped, no note. */
export function sanitizeLine(input: string): string {
  return escapeControls(input).text;
}

/** For prose that reaches an agent's prompt: escaped, with a note so the rewrite is visible. */
export function sanitizeProse(input: string): string {
  const { text, replaced } = escapeControls(input);
  if (replaced === 0) return text;
  const what = replaced === 1 ? '1 control character was' : `${replaced} control characters were`;
  return `${text}\n\n[lazy: ${what} replaced with printable \\uXXXX escapes]`;
}

/** Stored text may come from another clone: nothing printed may drive the terminal (C0 but TAB and LF, DEL, C1). */
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Text made safe to print: each control character a printable \uXXXX escape (idempotent: escapes print). */
export const printable = (text: string) => text.replace(UNPRINTABLE, uEscape);

/** One cell of tab-separated output: a tab or a line break inside it would split it, so each run becomes a space. */
export const oneCell = (c: string) => c.replace(/[\t\r\n]+/g, ' ');
