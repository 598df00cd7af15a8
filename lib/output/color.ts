import { styleText } from 'node:util';
import type { Env } from '../core/env.js';

// How text output is styled: whether it is coloured, and whether stdout is a terminal (tables
// align there, and are tab-separated elsewhere). emit() sets this around each rendering; every
// renderer colours through paint(). JSON never passes through here.

export const COLOR_MODES = ['auto', 'always', 'never'] as const;
export type ColorMode = (typeof COLOR_MODES)[number];

/** --color's value: bare --color means always and --no-color never, as in git (yargs then checks the choices). */
export const colorMode = (v: unknown): unknown => (v === '' || v === true ? 'always' : v === false ? 'never' : v);

/** --color first; then NO_COLOR (non-empty) turns colour off, FORCE_COLOR (non-empty, not 0) on; else a terminal (not TERM=dumb). */
export function colorWanted(mode: ColorMode | undefined, env: Env, stdoutTTY: boolean): boolean {
  if (mode === 'always') return true;
  if (mode === 'never') return false;
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  // As git: a terminal that says it is dumb gets no colour.
  return stdoutTTY && env.TERM !== 'dumb';
}

export interface Style {
  color: boolean;
  /** stdout is a terminal: tables are aligned and fit its width. */
  tty: boolean;
}

/** Outside emit() (a renderer called directly): plain aligned text. */
let current: Style = { color: false, tty: true };

export const style = (): Style => current;

/** Runs a (synchronous) rendering with `s` in force. */
export function renderWith<T>(s: Style, render: () => T): T {
  const before = current;
  current = s;
  try {
    return render();
  } finally {
    current = before;
  }
}

// emit() escapes every control character of the rendered text (stored text may come from another
// clone and must not drive the terminal), so paint() writes ESC as this per-process mark, which
// stored text cannot know, and emit() turns the marks back into ESC after escaping.
const MARK = `\ue000${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

/** SGR codes, real or marked: they take no columns. */
export const PAINT_CODES = new RegExp(`(?:\\u001b|${MARK})\\[[0-9;]*[A-Za-z]`, 'g');

export const unmark = (text: string) => (text.includes(MARK) ? text.replaceAll(MARK, '\u001b') : text);

type Format = Parameters<typeof styleText>[0];

export function paint(format: Format, text: string): string {
  if (!current.color || !text) return text;
  return styleText(format, text, { validateStream: false }).replaceAll('\u001b', MARK);
}

/**
 * Colours git itself wrote (lazy diff --color): its SGR codes are kept when colour is on, marked as
 * paint()'s are. Only SGR (colour, weight): any other control sequence is still escaped by emit().
 */
export const keepColors = (text: string) => (current.color ? text.replace(/\u001b(?=\[[0-9;]*m)/g, MARK) : text);

const STATUS_COLORS: Record<string, Format> = {
  backlog: 'dim',
  working: 'cyan',
  pairing: 'cyan',
  merging: 'cyan',
  blocked: 'yellow',
  conflict: 'red',
  interrupted: 'red',
  zombie: 'red',
  submitted: 'blue',
  complete: 'green',
  abandoned: 'dim',
};

export const paintStatus = (status: string) => {
  const format = STATUS_COLORS[status];
  return format ? paint(format, status) : status;
};

const ATTENTION_COLORS: Record<string, Format> = {
  review: 'green',
  decision: 'yellow',
  failure: 'red',
  conflict: 'red',
  interrupted: 'red',
  merging: 'cyan',
};

export const paintAttention = (kind: string) => paint(ATTENTION_COLORS[kind] ?? 'bold', kind);

/** A review's command result: ok green, FAIL red. */
export const paintResult = (ok: boolean, text: string) => paint(ok ? 'green' : ['red', 'bold'], text);
