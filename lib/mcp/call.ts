import type { Actor } from '../core/actor.js';
import { withEnv } from '../core/env.js';
import { withClock } from '../core/clock.js';
import type { Io } from '../core/io.js';
import { openApp, closeApp, type App } from '../ops/app.js';
import { callIo, type Reply } from './port.js';
import { checkArgs, type Tool } from './schema.js';

// One call from a client that is not a terminal (an MCP tool call, a request of `lazy ui`'s page), run as one CLI
// command: its own app (a reconcile pass first, as every command starts), its own port with stdout turned away, and
// the caller's actor on every commit. Both servers call through here, so a call means the same on either.

export interface CallSite {
  /** The serving command's port: stderr, the clock and the environment come from it; stdout never does. */
  io: Io;
  /** The repository directory. */
  cwd: string;
  /** How its notes on stderr begin: `lazy mcp`, `lazy ui`. */
  surface: string;
}

export interface CallOptions {
  actor: Actor;
  /** The caller went away: a wait or an ask it started ends. */
  signal: AbortSignal;
  /** false: the operation reconciles after its own writes (queue and its kin). */
  reconcile?: false;
}

/** `work` with a freshly opened app, under the call's port, clock and environment; the app is closed after. */
export function asCommand<T>(site: CallSite, o: CallOptions, work: (app: App) => Promise<T>): Promise<T> {
  const io = callIo(site.io, o.actor, o.signal, site.surface);
  return withEnv(io.env, () =>
    withClock(io.clock, async () => {
      const app = await openApp({
        io,
        cwd: site.cwd,
        json: true,
        ...(o.reconcile === false ? { reconcile: false } : {}),
      });
      try {
        return await work(app);
      } finally {
        closeApp(app);
      }
    }),
  );
}

/** A builder tool's call: its arguments held to its schema (a usage error otherwise), then its operation. */
export async function callTool(
  site: CallSite,
  tool: Tool,
  args: unknown,
  o: Omit<CallOptions, 'reconcile'>,
): Promise<Reply> {
  const io = callIo(site.io, o.actor, o.signal, site.surface);
  // Checked before the app opens, as the CLI parses before it runs: a bad argument costs no reconcile.
  const checked = withEnv(io.env, () => checkArgs(tool, args));
  return await asCommand(site, { ...o, ...(tool.reconcile === false ? { reconcile: false } : {}) }, (app) =>
    tool.run({ app, signal: o.signal }, checked),
  );
}
