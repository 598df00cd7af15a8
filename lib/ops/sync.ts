import { defaultRemote, addRefspecs } from '../sync/remote.js';
import {
  pull,
  push,
  sync,
  pushExit,
  type PullResult,
  type PushResult,
  type SyncResult,
  type SyncDeps,
} from '../sync/sync.js';
import { primeIndex } from '../store/listing/index.js';
import type { App } from './app.js';
import type { ReconcileAction } from '../reconcile/action.js';

// push, pull and sync as commands: the remote defaults to origin (or the only remote).

export function syncDeps(app: App, progress: boolean): SyncDeps {
  return {
    repo: app.repo,
    reader: app.store.reader,
    progress: progress ? (m) => app.io.err(`lazy: ${m}\n`) : undefined,
    onViews: (r) => primeIndex(app.repo.lazyDir, r.views.values()),
    // After each pull's merge and branch step, when the tracking refs it reads are fresh.
    afterPull: async (known) => {
      const { settleSubmitted } = await import('../reconcile/upstream/index.js');
      const actions: ReconcileAction[] = [];
      await settleSubmitted({ repo: app.repo, store: app.store, config: app.config }, actions, known);
      return actions.map(({ task, action, detail }) => ({ task, action, detail }));
    },
    // push and sync archive what is due first, so the remote sheds those refs in the same push.
    // archive.on_push false leaves it to `lazy archive` (a team with clones on a release that knows no archive).
    beforePush: async () => {
      if ((await app.config()).archive?.on_push === false) return [];
      const { archiveOp } = await import('./archive.js');
      return (await archiveOp(app)).archived;
    },
  };
}

const wantsProgress = (app: App) => !app.out.json && app.io.isTTY.stderr;

export async function pullOp(app: App, remote?: string): Promise<PullResult> {
  const { tips: _t, ...result } = await pull(syncDeps(app, wantsProgress(app)), await defaultRemote(app.repo, remote));
  warnRefused(app, result);
  return result;
}

/**
 * A pull that refused remote data still succeeds (the local store is intact, the rest merged), and says so on stderr.
 */
function warnRefused(app: App, p: PullResult): void {
  const n = p.rejected.length + (p.config_rejected ? 1 : 0);
  if (n)
    app.io.warn(`the pull refused ${n} remote ref(s), each listed with its reason; the local copies are unchanged`);
}

/** pull exits 0 when it refused remote data (warned); push and sync exit non-zero when something was not delivered. */
export const exitOf = {
  pull: () => 0,
  push: (p: PushResult) => pushExit(p),
  sync: (s: SyncResult) => pushExit(s.push),
};

export async function pushOp(app: App, remote?: string): Promise<PushResult> {
  return push(syncDeps(app, wantsProgress(app)), await defaultRemote(app.repo, remote));
}

export async function syncOp(app: App, remote?: string): Promise<SyncResult> {
  const s = await sync(syncDeps(app, wantsProgress(app)), await defaultRemote(app.repo, remote));
  warnRefused(app, s.pull);
  return s;
}

export async function initRemote(app: App, remote?: string): Promise<string[]> {
  return addRefspecs(app.repo, await defaultRemote(app.repo, remote));
}
