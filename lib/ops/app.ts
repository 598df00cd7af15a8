import { openRepo, type Repo } from '../core/repo.js';
import { Store } from '../store/store.js';
import { loadConfig, type Config } from '../store/config/index.js';
import type { Io } from '../core/io.js';
import type { Launcher } from '../core/launcher.js';

// What every command runs with: the repository, the store, the merged config (read on
// first use), and how to print.
export interface App {
  repo: Repo;
  store: Store;
  /** How results are printed: --json or text. */
  out: { json: boolean };
  /** Everything the operation says, asks or waits on goes through the port. */
  io: Io;
  /** How turns start their supervisors (the port's). */
  launcher: Launcher;
  config(): Promise<Config>;
}

export interface AppOptions {
  io: Io;
  cwd: string;
  json: boolean;
  reconcile?: boolean;
}

export async function openApp(o: AppOptions): Promise<App> {
  const repo = await openRepo(o.cwd);
  const store = new Store(repo);
  let config: Promise<Config> | undefined;
  const app: App = {
    repo,
    store,
    out: { json: o.json },
    io: o.io,
    launcher: o.io.launcher,
    config: () =>
      (config ??= loadConfig(repo, store.reader.objects).then((c) => {
        if (c.problem) o.io.warn(`${c.problem.message} (lazy doctor --fix restores it)`);
        for (const e of c.ignored) o.io.warn(e.message);
        return c.merged;
      })),
  };
  if (o.reconcile !== false) await reconcileNow(app);
  return app;
}

/**
 * The reconcile pass every command starts with; cheap (two readdirs: the active markers and the locks, a read per
 * watched target branch, and a readdir and two stats per remote) when nothing runs here.
 */
export async function reconcileNow(app: App): Promise<void> {
  const { listActive } = await import('../store/markers.js');
  const { locksPresent } = await import('../core/lock.js');
  const { sweepDue } = await import('../workspace/target-tips.js');
  const { upstreamDue } = await import('../reconcile/upstream/due.js');
  const sweep = sweepDue(app.repo);
  const upstream = upstreamDue(app.repo);
  if (!sweep && !upstream && listActive(app.repo.lazyDir).length === 0 && !locksPresent(app.repo.lazyDir)) return;
  const { reconcile } = await import('../reconcile/reconcile.js');
  const actions = await reconcile(
    { repo: app.repo, store: app.store, launcher: app.launcher, config: app.config },
    { sweep, upstream },
  );
  for (const a of actions) if (a.warn) app.io.warn(`task ${a.task}: ${a.detail}`);
}

export function closeApp(app: App): void {
  app.store.close();
}
