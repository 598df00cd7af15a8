import { AsyncLocalStorage } from 'node:async_hooks';
import type { Io } from '../lib/core/io.js';
import { withEnv } from '../lib/core/env.js';
import { withClock } from '../lib/core/clock.js';

// One command invocation: its port, working directory, stdin and exit code. main() opens a
// call per argv, so commands run in-process (tests, the MCP server) never share one.

export interface Call {
  io: Io;
  /** The directory the command was started in (before -C). */
  cwd: string;
  /** Piped or redirected stdin text; `optional` callers never wait on a socket (see bin/io.ts). */
  stdin(optional: boolean): string | undefined;
  exitCode: number;
  /** The words after `--`, exactly as given: yargs hands them over in `_`, numbers coerced (lazy run's command). */
  afterDashes?: string[];
}

const scope = new AsyncLocalStorage<Call>();

export function currentCall(): Call {
  const c = scope.getStore();
  if (!c) throw new Error('a command ran outside main()');
  return c;
}

/** Runs a command with its port bound: the call, its environment and its clock (deep readers ask core/env and core/clock). */
export const inCall = <T>(c: Call, f: () => Promise<T>): Promise<T> =>
  scope.run(c, () => withEnv(c.io.env, () => withClock(c.io.clock, f)));
