import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { forbidden, unauthorized } from '../../core/errors.js';

// Security, because this page can merge code. Invariant: every request passes `admit` before any route runs.
// - The token: `?token=` on the printed URL is exchanged once for an HttpOnly, SameSite=Strict cookie; a request
//   without the cookie (or the token) is refused. A page of another site cannot read the token, so it cannot send
//   the X-Lazy-Token header a change needs, and a cross-site form cannot send custom headers at all.
// - DNS rebinding: a Host that is not one of this server's own names is refused, so a hostile name resolved to
//   127.0.0.1 reaches nothing.
// - A change from a foreign Origin (or one fetch metadata calls cross-site) is refused; no CORS header is ever sent.

export interface Gate {
  token: string;
  port: number;
  /** host:port values a request may name (lowercase): the loopback names, and the --host given. */
  hosts: ReadonlySet<string>;
  /** The origins a change may come from: http://<host> for each of `hosts`. */
  origins: ReadonlySet<string>;
  /** The cookie that carries the token: one per port, so two servers on one machine keep theirs apart. */
  cookie: string;
}

export const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

export function gateOf(token: string, port: number, names: readonly string[]): Gate {
  // A browser leaves the default port out of Host and Origin.
  const hosts = new Set(
    names.flatMap((n) => [`${n.toLowerCase()}:${port}`, ...(port === 80 ? [n.toLowerCase()] : [])]),
  );
  return { token, port, hosts, origins: new Set([...hosts].map((h) => `http://${h}`)), cookie: `lazy_ui_${port}` };
}

/** Constant-time: a wrong token takes as long to refuse whatever its prefix. */
export function tokenIs(gate: Gate, given: string | undefined | null): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(gate.token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie of the exchanged token: never readable by script, never sent by another site's request. */
export const tokenCookie = (gate: Gate) => `${gate.cookie}=${gate.token}; HttpOnly; SameSite=Strict; Path=/`;

/** A request's Host, as this server must be named (DNS rebinding). */
export function checkHost(gate: Gate, req: IncomingMessage): void {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!gate.hosts.has(host))
    throw forbidden(
      `this server answers only to ${[...gate.hosts].join(', ')}; the request named host '${host || '(none)'}'`,
      { host },
    );
}

/** Everything but the token exchange: the cookie; and a change, also the header, from this server's own origin. */
export function checkRequest(gate: Gate, req: IncomingMessage): void {
  if (!tokenIs(gate, cookieOf(req, gate.cookie)))
    throw unauthorized('no valid token: open the address `lazy ui` printed (it carries the token)');
  if (req.method === 'GET' || req.method === 'HEAD') return;
  const origin = req.headers.origin;
  if (origin !== undefined && !gate.origins.has(origin.toLowerCase()))
    throw forbidden(`a change from origin '${origin}' is refused: only this page may make one`, { origin });
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    throw forbidden(`a ${site} request may not change anything`, { sec_fetch_site: site });
  const header = req.headers['x-lazy-token'];
  if (!tokenIs(gate, Array.isArray(header) ? header[0] : header))
    throw unauthorized('a change must carry the page token in the X-Lazy-Token header');
}

/** Headers on every answer: a strict CSP (no inline script or style), no framing, no sniffing, no referrer. */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};
