import { AsyncLocalStorage } from 'node:async_hooks';

// The environment of the command being run. main() binds the port's env for the call, so
// commands run in-process (tests, the MCP server) each see their own; deep readers (the
// host name, the actor, the lock timeout) ask here instead of reading process.env.

export type Env = Readonly<Record<string, string | undefined>>;

const scope = new AsyncLocalStorage<Env>();

export const env = (): Env => scope.getStore() ?? process.env;

export const withEnv = <T>(e: Env, f: () => T): T => scope.run(e, f);

/** The width of the terminal this process writes to, when stdout is one (an in-process run sets COLUMNS instead). */
export const terminalColumns = (): number | undefined =>
  process.stdout.isTTY && process.stdout.columns ? process.stdout.columns : undefined;
