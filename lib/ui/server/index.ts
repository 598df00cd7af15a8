import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';
import { basename } from 'node:path';
import { busy, unauthorized, usageError } from '../../core/errors.js';
import { errorJson, reportError } from '../../output/emit.js';
import type { Io } from '../../core/io.js';
import type { Clock } from '../../core/clock.js';
import { openRepo } from '../../core/repo.js';
import type { CallSite } from '../../mcp/call.js';
import { api } from './api.js';
import { ASSET_TYPES, loadAssets, shell, type Assets } from './assets.js';
import { Changes } from './events.js';
import { checkHost, checkRequest, gateOf, LOOPBACK_NAMES, tokenCookie, tokenIs, type Gate } from './guard.js';
import { claimInstance } from './instance.js';
import { openBrowser } from './open.js';
import { send, sendError, sendJson, sendRefusalPage } from './reply.js';

// `lazy ui`: the board and the review as a local web page, served only while the command runs. No daemon: every
// request reads the refs as a command does (lib/mcp/call.ts), and the page hears of changes by a watcher that
// looks only while a page listens.

export interface UiOptions {
  io: Io;
  cwd: string;
  /** 0: a free port the system picks. */
  port: number;
  /** Default: loopback only. */
  host?: string;
  open: boolean;
  /** --json: the first line is `{"url","host","port"}` instead of the bare address. */
  json: boolean;
  /** Where the built page is (dist/ui). */
  assets: string;
}

interface Site {
  site: CallSite;
  /** The repository's folder name, for the page's title. */
  repoName: string;
  gate: Gate;
  assets: Assets;
  changes: Changes;
}

const PAGE = /^\/(?:tasks\/[^/]+)?$/;

/** Page requests: the token exchange, the shell, the built files; a refusal is said as text to the person. */
function page(s: Site, req: IncomingMessage, res: ServerResponse, url: URL): void {
  const token = url.searchParams.get('token');
  if (token !== null && PAGE.test(url.pathname)) {
    if (!tokenIs(s.gate, token))
      return sendRefusalPage(
        res,
        unauthorized("this address's token is not this server's: open the address `lazy ui` printed"),
      );
    // The token leaves the address bar (and the history) at once; from now on the cookie carries it.
    url.searchParams.delete('token');
    return send(res, 303, 'text/plain; charset=utf-8', '', {
      location: url.pathname + url.search,
      'set-cookie': tokenCookie(s.gate),
    });
  }
  checkRequest(s.gate, req);
  if (req.method !== 'GET' && req.method !== 'HEAD') throw usageError(`${req.method} is not served at ${url.pathname}`);
  const asset = url.pathname.match(/^\/assets\/(app\.js|app\.css)$/)?.[1] as keyof Assets | undefined;
  if (asset) return send(res, 200, ASSET_TYPES[asset], s.assets[asset]);
  if (PAGE.test(url.pathname))
    return send(res, 200, 'text/html; charset=utf-8', shell(s.gate.token, s.repoName, s.site.io.clock.now()));
  send(res, 404, 'text/plain; charset=utf-8', `lazy ui: no page at ${url.pathname}\n`);
}

/** The request's address; one that does not parse is refused (before the gate: it names nothing to guard). */
function urlOf(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? '/', 'http://lazy.invalid');
  } catch {
    throw usageError('the request names no valid path');
  }
}

async function handle(s: Site, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const isApi = (req.url ?? '').startsWith('/api/');
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  try {
    const url = urlOf(req);
    checkHost(s.gate, req);
    if (!isApi) return page(s, req, res, url);
    checkRequest(s.gate, req);
    const served = await api({ site: s.site, req, res, url, signal: gone.signal, changes: s.changes });
    if (!served) sendJson(res, errorJson(usageError(`no such API: ${url.pathname}`, { path: url.pathname })), 404);
  } catch (e) {
    if (isApi) sendError(res, e);
    else sendRefusalPage(res, e);
  }
}

/** How long Ctrl-C lets an action already running (an accept, say) finish before its connection is cut. */
const DRAIN_MS = 10_000;

/**
 * Stops taking requests, ends the event streams and idle connections at once, lets requests in flight finish (up to
 * DRAIN_MS, so an accept under way is not cut off mid-merge by the person's Ctrl-C), then cuts what is left.
 */
async function shutDown(server: Server, changes: Changes, clock: Clock): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  changes.close();
  server.closeIdleConnections();
  const timer = new AbortController();
  await Promise.race([closed, clock.sleep(DRAIN_MS, timer.signal).catch(() => {})]);
  timer.abort();
  server.closeAllConnections();
  await closed;
}

const isLoopback = (host: string | undefined) => !host || host === '::1' || LOOPBACK_NAMES.includes(host);

/** The names a request may call this server by: loopback's, and what --host names (every address, for a wildcard). */
function namesOf(host: string | undefined): string[] {
  if (isLoopback(host)) return LOOPBACK_NAMES;
  const wildcard = host === '0.0.0.0' || host === '::';
  const addresses = wildcard
    ? Object.values(networkInterfaces())
        .flat()
        .flatMap((a) => (a ? [a.family === 'IPv6' ? `[${a.address}]` : a.address] : []))
    : [];
  return [...LOOPBACK_NAMES, ...(wildcard ? [hostname()] : [host!.includes(':') ? `[${host}]` : host!]), ...addresses];
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? busy(`port ${port} on ${host} is in use (--port 0 picks a free one)`, { port, host })
          : usageError(`lazy ui cannot listen on ${host}:${port}: ${e.message}`, { port, host }),
      ),
    );
    server.listen(port, host, () => resolve((server.address() as { port: number }).port));
  });
}

/**
 * Serves until Ctrl-C or SIGTERM; returns the exit code. The first line of stdout is the page's address. A failure
 * is reported here, in this bundle, where its error class is known (as lazy mcp's are).
 */
export async function serveUi(o: UiOptions): Promise<number> {
  try {
    return await serve(o);
  } catch (e) {
    return reportError({ out: o.io.out, err: o.io.err }, o.json, e);
  }
}

async function serve(o: UiOptions): Promise<number> {
  // Ctrl-C is heard from the start: a signal that finds no listener kills the process at once, before it could
  // release the repository. The handler stays until the server has closed, since proper-lockfile's signal-exit
  // re-raises a signal whose other listeners are gone by the time it runs.
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const off = o.io.onSignal(() => stop());
  try {
    return await serveUntil(o, stopped);
  } finally {
    off();
  }
}

async function serveUntil(o: UiOptions, stopped: Promise<void>): Promise<number> {
  const repo = await openRepo(o.cwd);
  const assets = loadAssets(o.assets);
  const host = o.host ?? '127.0.0.1';
  if (!isLoopback(o.host))
    o.io.warn(`lazy ui serves on ${o.host}: anyone who can reach it and holds the token can act on your tasks`);
  const token = randomBytes(24).toString('base64url');
  const changes = new Changes(repo, o.io.clock);
  let site: Site | undefined;
  // Until the port is known there is no gate to check a request against: nothing is served before.
  const server = createServer((req, res) =>
    // Invariant: no request ends the server; handle answers every failure, and this is the last word if it cannot.
    site
      ? handle(site, req, res).catch((e) => sendRefusalPage(res, e))
      : send(res, 503, 'text/plain; charset=utf-8', 'lazy ui: starting\n'),
  );
  const port = await listen(server, o.port, host);
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${port}/?token=${token}`;
  site = {
    site: { io: o.io, cwd: repo.cwd, surface: 'lazy ui' },
    repoName: basename(repo.cwd),
    gate: gateOf(token, port, namesOf(o.host)),
    assets,
    changes,
  };
  let release: () => void;
  try {
    release = claimInstance(repo.lazyDir, url);
  } catch (e) {
    server.close();
    throw e;
  }
  o.io.out(`${o.json ? JSON.stringify({ url, host, port }) : url}\n`);
  o.io.err(`lazy ui: serving ${repo.cwd}; Ctrl-C stops it\n`);
  if (o.open) openBrowser(o.io, repo.lazyDir, url);
  await stopped;
  await shutDown(server, changes, o.io.clock);
  release();
  return 0;
}
