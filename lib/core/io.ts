import type { Env } from './env.js';
import type { Clock } from './clock.js';
import type { Launcher } from './launcher.js';

// The port every operation talks to the world through. bin/ builds the real one over the
// process's streams; tests build a recording one and run commands in-process.

export interface Io {
  /** Results: stdout. Writes after the reader went away are dropped. */
  out(text: string): void;
  /** Human notes that are neither results nor warnings (progress): stderr. */
  err(text: string): void;
  /** A warning line for a person; never on stdout, so --json stays one document. */
  warn(message: string): void;
  /** Which streams are terminals: prompts, progress and colour depend on it. */
  isTTY: { stdin: boolean; stdout: boolean; stderr: boolean };
  /** A yes/no question for a person; only asked where isTTY.stdin. */
  confirm(question: string): Promise<boolean>;
  /** Step `index` of `total` of a long operation, for a person watching. */
  narrate(index: number, total: number, label: string): void;
  /** Every clock read and timer of the command (main() binds it: see core/clock.ts). */
  clock: Clock;
  /** The environment lazy reads its settings from and hands to the processes it starts. */
  env: Env;
  /**
   * Shows a command's whole text output through `pager` (a shell command, as git runs core.pager), then
   * returns once the pager exits; its exit status is the person's business, not the command's.
   */
  page(text: string, pager: string): Promise<void>;
  /** False once stdout's reader has gone: long-running output can stop. */
  outOpen(): boolean;
  /** How turns start their supervisors: detached processes for the CLI, in-process for behaviour tests. */
  launcher: Launcher;
  /** Pause between accept's steps, to widen crash windows in tests; 0 in real use. */
  stepDelayMs: number;
  /**
   * Ctrl-C and SIGTERM, for a long-running command that winds down instead of dying (lazy work):
   * `handler` runs on each until the returned function is called.
   */
  onSignal(handler: (signal: StopSignal) => void): () => void;
}

export type StopSignal = 'SIGINT' | 'SIGTERM';

/** The real onSignal, over this process's signals. */
export function processSignals(handler: (signal: StopSignal) => void): () => void {
  const sigs: StopSignal[] = ['SIGINT', 'SIGTERM'];
  const listeners = sigs.map((s) => [s, () => handler(s)] as const);
  for (const [s, f] of listeners) process.on(s, f);
  return () => {
    for (const [s, f] of listeners) process.off(s, f);
  };
}
