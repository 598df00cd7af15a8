import { defaultRemote, addRefspecs } from '../sync/remote.js';
import { pull, push, sync, type PullResult, type PushResult, type SyncResult, type SyncDeps } from '../sync/sync.js';
import { primeIndex } from '../store/listing.js';
import type { App } from './app.js';

// push, pull and sync as commands: the remote defaults to origin (or the only remote).

function deps(app: App, progress: boolean): SyncDeps {
  return {
    repo: app.repo, reader: app.store.reader,
    progress: progress ? (m) => process.stderr.write(`lazy: ${m}\n`) : undefined,
    onViews: (r) => primeIndex(app.repo.lazyDir, r.views.values()),
  };
}

const wantsProgress = (app: App) => !app.out.json && process.stderr.isTTY;

export async function pullOp(app: App, remote?: string): Promise<PullResult> {
  const { tips: _t, ...result } = await pull(deps(app, wantsProgress(app)), await defaultRemote(app.repo, remote));
  return result;
}

export async function pushOp(app: App, remote?: string): Promise<PushResult> {
  return push(deps(app, wantsProgress(app)), await defaultRemote(app.repo, remote));
}

export async function syncOp(app: App, remote?: string): Promise<SyncResult> {
  return sync(deps(app, wantsProgress(app)), await defaultRemote(app.repo, remote));
}

export async function initRemote(app: App, remote?: string): Promise<string[]> {
  return addRefspecs(app.repo, await defaultRemote(app.repo, remote));
}
