import { asLazyError, type LazyError } from '../core/errors.js';
import { printable, uEscape } from '../core/sanitize.js';
import { renderWith, unmark, type Style } from './color.js';

// One place decides how results and errors reach the terminal. With --json, stdout
// carries exactly one JSON document (the result, or {"error": …}); warnings always go
// to stderr so they never corrupt it.

/** What JSON.stringify leaves raw (it escapes C0 itself): DEL and the C1 controls. */
const JSON_UNPRINTABLE = /[\u007f-\u009f]/g;

/** Stored text may come from another clone: nothing printed may drive the terminal. */
export const safeText = printable;

/**
 * Text a renderer built only from escaped pieces (the listing's stored lines are escaped when written), so emit
 * does not scan it again: 10 ms on a 9 MB list.
 */
export class Escaped {
  constructor(readonly text: string) {}
}

/** What a renderer returns: text emit escapes, or text already escaped. */
export type Rendered = string | Escaped;

/** The text itself, for a caller that embeds it in more text (emit escapes that whole). */
export const textIn = (r: Rendered) => (typeof r === 'string' ? r : r.text);

/** Where a command's result and error text go: the port's out and err. */
export interface Sink {
  out(text: string): void;
  err(text: string): void;
}

// The \uXXXX escape is valid JSON, so the document parses to the same strings.
export const jsonText = (value: unknown) => JSON.stringify(value, null, 2).replace(JSON_UNPRINTABLE, uEscape) + '\n';

export function textOf(text: Rendered): string {
  const safe = typeof text === 'string' ? safeText(text) : text.text;
  return safe ? (safe.endsWith('\n') ? safe : safe + '\n') : '';
}

/** The text a result prints: rendered in `style` (colour, terminal or not), escaped, then coloured. */
export const renderedText = <T>(value: T, text: (v: T) => Rendered, style?: Style): string => {
  if (!style) return textOf(text(value));
  const out = textOf(renderWith(style, () => text(value)));
  // Without colour nothing was painted, so no marker to restore: a 9 MB list is not scanned for one.
  return style.color ? unmark(out) : out;
};

export function emit<T>(sink: Sink, json: boolean, value: T, text: (v: T) => Rendered, style?: Style): void {
  const s = json ? jsonText(value) : renderedText(value, text, style);
  if (s) sink.out(s);
}

export const warnLine = (message: string) => `lazy: warning: ${safeText(message)}\n`;

export function errorJson(e: LazyError) {
  return { error: { code: e.code, message: e.message, details: e.details } };
}

/** Reports a failure and returns the exit code. */
export function reportError(sink: Sink, json: boolean, err: unknown): number {
  const e = asLazyError(err);
  if (json) sink.out(jsonText(errorJson(e)));
  else {
    const stack = e.code === 'unexpected' && typeof e.details.stack === 'string' ? e.details.stack : undefined;
    sink.err(`lazy: ${safeText(stack ?? e.message)}\n`);
    const hint = e.details.hint;
    if (typeof hint === 'string') sink.err(`hint: ${safeText(hint)}\n`);
  }
  return e.exitCode;
}
