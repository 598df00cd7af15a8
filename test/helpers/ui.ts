import { request } from 'node:http';
import { mkdtempSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { LAZY, type Sandbox } from './env.js';
import { background, exited } from './procs.js';

// `lazy ui` as a person starts it: the built CLI in the background, its address read from its first line of stdout.

export interface UiServer {
  /** The first line of stdout, as printed. */
  first: string;
  url: string;
  port: number;
  token: string;
  /** http://127.0.0.1:<port> */
  origin: string;
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  /** SIGINT, as Ctrl-C; resolves with the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startUi(sb: Sandbox, env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<UiServer> {
  const child = background(process.execPath, [LAZY, 'ui', '--port', '0', ...args], {
    cwd: sb.dir,
    env: { ...sb.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      const first = out.slice(0, nl);
      // --json prints {"url","host","port"} instead of the bare address.
      const url = first.startsWith('{') ? (JSON.parse(first) as { url: string }).url : first;
      const u = new URL(url);
      resolve({
        first,
        url,
        port: Number(u.port),
        token: u.searchParams.get('token')!,
        origin: u.origin,
        child,
        stderr: () => err,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGINT');
          return exited(child);
        },
      });
    });
    void exited(child).then(({ code }) => reject(new Error(`lazy ui exited ${code} before its address: ${out}${err}`)));
  });
}

export interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): any;
}

/** One HTTP request with exactly the headers given (a Host or Origin a browser would not send included). */
export function raw(
  port: number,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: o.method ?? 'GET', path: o.path, headers: o.headers ?? {} },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body, json: () => JSON.parse(body) }),
        );
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

/** A page's request: its Host, its cookie, and (for a change) its token header and origin. */
export function asPage(ui: UiServer) {
  const base = { host: `127.0.0.1:${ui.port}`, cookie: `lazy_ui_${ui.port}=${ui.token}` };
  return {
    get: (path: string, headers: Record<string, string> = {}) =>
      raw(ui.port, { path, headers: { ...base, ...headers } }),
    post: (path: string, body: unknown, headers: Record<string, string> = {}) =>
      raw(ui.port, {
        method: 'POST',
        path,
        body: JSON.stringify(body),
        headers: {
          ...base,
          'content-type': 'application/json',
          'x-lazy-token': ui.token,
          origin: ui.origin,
          ...headers,
        },
      }),
  };
}

export const CHROMIUM = '/usr/bin/chromium';

/** Debian's chromium, headless, in a fresh profile; the flags keep it off this machine's closed network. */
export async function launchBrowser(dir: string) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
  const { launch } = await import('puppeteer-core');
  return launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: mkdtempSync(join(dir, 'chromium-')),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
