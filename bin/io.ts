import { fstatSync } from 'node:fs';
import { isatty } from 'node:tty';
import { processSignals, type Io } from '../lib/core/io.js';
import { systemClock } from '../lib/core/clock.js';
import { detachedLauncher } from '../lib/core/launcher.js';
import { readTextInput } from '../lib/core/fsutil.js';
import { warnLine } from '../lib/output/emit.js';
import { pageThrough, stdoutOpen, writeErr, writeOut } from './pipes.js';
import { pagerEnv } from '../lib/output/pager.js';
import type { Call } from './call.js';

// The real port, over this process's streams and environment. Tests build theirs with
// the same narration and warning formats (test/helpers/inproc.ts).

/** Step narration: "[2/4] label…" on a terminal, one plain line per step otherwise (stderr under --json). */
export const narrator =
  (json: boolean, tty: boolean, out: (t: string) => void, err: (t: string) => void) =>
  (i: number, n: number, label: string) => {
    if (json) err(`accept: ${label}\n`);
    else if (tty) out(`[${i}/${n}] ${label}…\n`);
    else out(`accept: ${label}\n`);
  };

export function processIo(json: boolean): Io {
  const err = writeErr;
  // Asked of the descriptors, not of process.stdin and process.stderr: those streams are built when first read
  // (a few ms each), and most commands never read stdin nor write to stderr.
  const isTTY = { stdin: isatty(0), stdout: isatty(1), stderr: isatty(2) };
  // Supervisors are started through the entry point this command came in by.
  const env = { ...process.env, LAZY_CLI: process.env.LAZY_CLI ?? process.argv[1] };
  return {
    out: writeOut,
    err,
    warn: (m) => err(warnLine(m)),
    isTTY,
    // Nobody answers off a terminal: no is the only safe answer (accept refuses before asking there).
    confirm: (q) => (isTTY.stdin && isTTY.stdout ? ask(q) : Promise.resolve(false)),
    narrate: narrator(json, isTTY.stdout, writeOut, err),
    clock: systemClock,
    env,
    page: (text, pager) => pageThrough(text, pager, pagerEnv(env)),
    outOpen: stdoutOpen,
    launcher: detachedLauncher(env.LAZY_CLI ?? 'lazy'),
    stepDelayMs: 0,
    onSignal: processSignals,
  };
}

/** Options whose value may be `-` (stdin): yargs would read a lone `-` as a positional, so it is joined first. */
const DASH_VALUED = new Set(['--prompt-file']);

/** `--prompt-file -` → `--prompt-file=-`, as git and gh take `-F -`. */
export const joinDashValues = (argv: string[]) =>
  argv.flatMap((a, i) =>
    a === '-' && DASH_VALUED.has(argv[i - 1]!) ? [] : DASH_VALUED.has(a) && argv[i + 1] === '-' ? [`${a}=-`] : [a],
  );

export function processCall(json: boolean): Call {
  return { io: processIo(json), cwd: process.cwd(), stdin: readStdin, exitCode: 0 };
}

/** Asks y/N on a terminal. */
async function ask(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline'); // loaded by the one command that asks
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer: string = await new Promise((res) => rl.question(`${question} [y/N] `, res));
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/**
 * Piped or redirected stdin; never a terminal or /dev/null. Where the text is optional
 * (create's prompt) a socket is not read: an inherited, never-closed socket (a parent
 * process's stdin) would block the command forever.
 */
function readStdin(optional: boolean): string | undefined {
  try {
    const st = fstatSync(0);
    if (!st.isFIFO() && !st.isFile() && (optional || !st.isSocket())) return undefined;
  } catch {
    return undefined;
  }
  const text = readTextInput(0, 'stdin');
  return text.length ? text : undefined;
}
