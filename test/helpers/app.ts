import { openApp, closeApp, type App } from '../../lib/ops/app.js';
import { systemClock, type Io } from '../../lib/core/io.js';
import { withEnv } from '../../lib/core/env.js';
import { LAZY, type Sandbox } from './env.js';

// An App over a sandbox with a recording port, for tests that call operations directly.

export interface Recording {
  out: string[];
  err: string[];
  warnings: string[];
  /** Each narrated step as "i/n label". */
  narrated: string[];
  questions: string[];
}

export interface TestApp {
  app: App;
  rec: Recording;
  /** Runs f with the sandbox's environment bound, as main() does for a command. */
  run<T>(f: (app: App) => Promise<T>): Promise<T>;
  close(): void;
}

export function recordingIo(
  env: NodeJS.ProcessEnv,
  o: { answer?: boolean; stepDelayMs?: number } = {},
): { io: Io; rec: Recording } {
  const rec: Recording = { out: [], err: [], warnings: [], narrated: [], questions: [] };
  const io: Io = {
    out: (t) => void rec.out.push(t),
    err: (t) => void rec.err.push(t),
    warn: (m) => void rec.warnings.push(m),
    isTTY: { stdin: false, stdout: false, stderr: false },
    confirm: async (q) => {
      rec.questions.push(q);
      return o.answer ?? true;
    },
    narrate: (i, n, label) => void rec.narrated.push(`${i}/${n} ${label}`),
    clock: systemClock,
    env: { ...env, LAZY_CLI: LAZY },
    outOpen: () => true,
    stepDelayMs: o.stepDelayMs ?? 0,
  };
  return { io, rec };
}

export async function testApp(
  sb: Sandbox,
  o: { answer?: boolean; stepDelayMs?: number; env?: NodeJS.ProcessEnv; reconcile?: boolean } = {},
): Promise<TestApp> {
  const { io, rec } = recordingIo({ ...sb.env, ...o.env }, o);
  const app = await withEnv(io.env, () => openApp({ io, cwd: sb.dir, json: false, reconcile: o.reconcile }));
  return { app, rec, run: (f) => withEnv(io.env, () => f(app)), close: () => closeApp(app) };
}
