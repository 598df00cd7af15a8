import { main } from '../../bin/cli.js';
import { narrator } from '../../bin/io.js';
import type { Call } from '../../bin/call.js';
import type { Io } from '../../lib/core/io.js';
import { systemClock } from '../../lib/core/clock.js';
import { warnLine } from '../../lib/output/emit.js';
import { inprocLauncher } from './supervise.js';

// Commands run in this process through main(), with a recording port: the same parser,
// operations and renderers as the built CLI, without a process start per command.

export interface Recorded {
  code: number;
  stdout: string;
  stderr: string;
  signal: null;
}

export interface InprocOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Piped stdin text; without it stdin is closed and empty, as for a spawned command. */
  input?: string | Buffer;
  /** Entry point the detached supervisor is started through (the built CLI). */
  cliPath: string;
  /** Parts of the port to replace: e.g. stepDelayMs (accept pauses between its steps) or the clock. */
  io?: Partial<Io>;
}

export async function inproc(args: string[], o: InprocOptions): Promise<Recorded> {
  let stdout = '';
  let stderr = '';
  const out = (t: string) => void (stdout += t);
  const err = (t: string) => void (stderr += t);
  const input = o.input === undefined ? undefined : String(o.input);
  const call: Call = {
    cwd: o.cwd,
    exitCode: 0,
    stdin: () => (input ? input : undefined),
    io: recordingIo({ env: o.env, cliPath: o.cliPath, json: args.includes('--json'), out, err, io: o.io }),
  };
  const code = await hangGuard(
    main(args, call),
    () => `lazy ${args.join(' ')}`,
    () => stderr,
  );
  return { code, stdout, stderr, signal: null };
}

/** No in-process command takes this long: one that does has hung, and fails naming itself, well before tap's file timeout. */
const HANG_MS = 600_000;

function hangGuard<T>(p: Promise<T>, what: () => string, stderr: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`${what()} did not finish in ${HANG_MS / 1000} s; its stderr so far: ${stderr().slice(-2000)}`),
        ),
      HANG_MS,
    );
    timer.unref();
  });
  return Promise.race([p, hung]).finally(() => clearTimeout(timer));
}

/** Turns supervised in this process, as in-process commands start them (for a test that launches a turn itself). */
export const inprocSupervisors = (cliPath: string) =>
  inprocLauncher(cliPath, (args, x) => inproc(args, { ...x, cliPath }));

/** The port an in-process command (or MCP server) runs with: output recorded, nothing on a terminal. */
export function recordingIo(o: {
  env: NodeJS.ProcessEnv;
  cliPath: string;
  json: boolean;
  out: (t: string) => void;
  err: (t: string) => void;
  io?: Partial<Io>;
}): Io {
  return {
    out: o.out,
    err: o.err,
    warn: (m) => o.err(warnLine(m)),
    isTTY: { stdin: false, stdout: false, stderr: false },
    confirm: async () => true,
    narrate: narrator(o.json, false, o.out, o.err),
    clock: systemClock,
    env: { ...o.env, LAZY_CLI: o.cliPath },
    // Turns started here are supervised here: a detached supervisor is a test of its own (test/cli).
    launcher: inprocSupervisors(o.cliPath),
    outOpen: () => true,
    page: async (text) => o.out(text),
    stepDelayMs: 0,
    onSignal: () => () => undefined,
    ...o.io,
  };
}
