import type { ServerResponse } from 'node:http';
import type { Clock } from '../../core/clock.js';
import type { Repo } from '../../core/repo.js';
import { asLazyError } from '../../core/errors.js';
import { sanitizeLine } from '../../core/sanitize.js';
import { errorJson } from '../../output/emit.js';
import { renderLine } from '../../output/stream.js';
import { followTask } from '../../ops/follow.js';
import { taskArg } from '../../ops/resolve.js';
import { asCommand, type CallSite } from '../../mcp/call.js';
import { fingerprint } from './changes.js';
import { openStream, type Stream } from './sse.js';

// The page's live channels: `change` whenever the task state moves (GET /api/events), and a working task's agent
// output as the readable lines `--follow` prints (GET /api/tasks/<id>/output).

/** How often the state is looked at while a page listens: a change shows within this, well inside 2 s. */
export const CHANGE_POLL_MS = 500;
/** How often a listening page is told the time (its relative times, "3 min ago", are reckoned from it). */
export const TIME_EVERY_MS = 30_000;

/** One watcher for all open pages: it looks only while one listens, on the serving command's clock. */
export class Changes {
  private readonly streams = new Set<Stream>();
  /** The output streams pages follow: ended with the change streams when the server closes. */
  private readonly held = new Set<Stream>();
  private looking = false;
  private readonly stopped = new AbortController();

  constructor(
    private readonly repo: Repo,
    private readonly clock: Clock,
  ) {}

  listen(res: ServerResponse): void {
    const s = openStream(res, () => this.streams.delete(s));
    this.streams.add(s);
    // What the page read before it listened may be older than this: it reads again now.
    s.send('change', { at: this.clock.now() });
    void this.look();
  }

  private async look(): Promise<void> {
    if (this.looking) return;
    this.looking = true;
    try {
      let last = await fingerprint(this.repo);
      let told = this.clock.now();
      while (this.streams.size && !this.stopped.signal.aborted) {
        // A look at the world, not one of lazy's own waits: the port's poll keeps its pace even on a paused clock.
        await this.clock.poll(CHANGE_POLL_MS, this.stopped.signal);
        const at = this.clock.now();
        // The page's time is this command's (the port's): it reads no clock of its own.
        if (at - told >= TIME_EVERY_MS) {
          told = at;
          for (const s of this.streams) s.send('time', { at });
        }
        const now = await fingerprint(this.repo);
        if (now === last) continue;
        last = now;
        for (const s of this.streams) s.send('change', { at });
      }
    } catch {
      // Stopped (the server is closing), or the repository went away: the pages' streams end with the server.
    } finally {
      this.looking = false;
    }
  }

  /** Keeps a page's output stream, so closing the server ends it rather than waiting out its turn. */
  hold(s: Stream): () => void {
    this.held.add(s);
    return () => this.held.delete(s);
  }

  close(): void {
    this.stopped.abort();
    for (const s of [...this.streams, ...this.held]) s.end();
  }
}

/** The running turn's output, line by line, until the task leaves working; then `end` with where it landed. */
export async function streamOutput(
  site: CallSite,
  idArg: string,
  res: ServerResponse,
  changes: Changes,
): Promise<void> {
  const gone = new AbortController();
  const s = openStream(res, () => gone.abort());
  const release = changes.hold(s);
  try {
    const v = await asCommand(site, { actor: 'human', signal: gone.signal }, async (app) => {
      const { id } = await taskArg(app, idArg);
      return followTask(
        app,
        id,
        (lines, adapter) => {
          for (const line of lines.split('\n').slice(0, -1))
            for (const text of renderLine(adapter, line)) s.send('line', { text: sanitizeLine(text) });
        },
        { stop: () => !s.open() },
      );
    });
    s.send('end', { status: v.status });
  } catch (e) {
    if (s.open()) s.send('failure', errorJson(asLazyError(e)));
  } finally {
    release();
    s.end();
  }
}
