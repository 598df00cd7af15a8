import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { env } from './env.js';
import { identityOf, nodeBinary, type ProcIdentity } from './proc.js';

// How a turn's supervisor starts: a port, so the CLI starts it as a process of its own that outlives the
// command, and a behaviour test runs the same `__supervise` loop inside the test's process
// (test/helpers/supervise.ts), where the test's clock drives it.

/** A run that launch prepared and committed, ready for its supervisor. */
export interface SupervisorStart {
  run: string;
  /** The repository's top folder, where `lazy __supervise <run>` runs. */
  top: string;
  /** The supervisor's own log (its stdout and stderr). */
  log: string;
}

export interface Launcher {
  /** The lazy entry point: what the supervisor and the agent's MCP server run through. */
  cliPath: string;
  /** Starts the supervisor of a prepared run, which outlives this command's work; the identity it runs under. */
  supervise(s: SupervisorStart): ProcIdentity;
}

/** The real launcher: `node <cliPath> __supervise <run>` in its own session, detached from this command. */
export function detachedLauncher(cliPath: string): Launcher {
  return {
    cliPath,
    supervise: (s) => {
      const fd = openSync(s.log, 'a');
      try {
        const child = spawn(nodeBinary(), [cliPath, '__supervise', s.run], {
          cwd: s.top,
          detached: true,
          stdio: ['ignore', fd, fd],
          env: env(),
        });
        child.unref();
        return identityOf(child.pid!);
      } finally {
        closeSync(fd);
      }
    },
  };
}
