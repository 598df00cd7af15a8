import type { IncomingMessage, ServerResponse } from 'node:http';
import { asLazyError, EXIT, usageError, type LazyError } from '../../core/errors.js';
import { errorJson, jsonText } from '../../output/emit.js';
import { SECURITY_HEADERS } from './guard.js';

// What the page is answered with: the CLI's JSON documents (a result as `--json` prints it, a failure as its error
// document) under an HTTP status that fits the exit code, always with the security headers.

/** A failure's HTTP status: the refusals of the gate by their code, everything else by its exit code. */
export function httpStatus(e: LazyError): number {
  if (e.code === 'unauthorized') return 401;
  if (e.code === 'forbidden') return 403;
  if (e.code === 'timeout') return 504;
  const byExit: Record<number, number> = {
    [EXIT.usage]: 400,
    [EXIT.notFound]: 404,
    [EXIT.notAllowed]: 409,
    [EXIT.busy]: 503,
    [EXIT.invalidData]: 422,
    [EXIT.external]: 502,
  };
  return byExit[e.exitCode] ?? 500;
}

export function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, ...extra });
  res.end(body);
}

export const sendJson = (res: ServerResponse, value: unknown, status = 200, extra = {}) =>
  send(res, status, 'application/json; charset=utf-8', jsonText(value ?? null), extra);

export function sendError(res: ServerResponse, err: unknown): void {
  const e = asLazyError(err);
  sendJson(res, errorJson(e), httpStatus(e));
}

/** A page's refusal for a person (the browser shows it): the message as text, never markup. */
export function sendRefusalPage(res: ServerResponse, err: unknown): void {
  const e = asLazyError(err);
  send(res, httpStatus(e), 'text/plain; charset=utf-8', `lazy ui: ${e.message}\n`);
}

/** An action's options: a JSON object of at most `limit` bytes (what a stored text may be is checked downstream). */
export async function readJsonBody(req: IncomingMessage, limit = 2 * 1024 * 1024): Promise<Record<string, unknown>> {
  const type = String(req.headers['content-type'] ?? '');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > limit) throw usageError(`the request body is over its ${limit}-byte limit`, { limit });
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {};
  if (!/^application\/json\b/i.test(type))
    throw usageError(`a request body must be application/json (got '${type || 'none'}')`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw usageError(`the request body is not JSON: ${(e as Error).message}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw usageError('the request body must be a JSON object');
  return doc as Record<string, unknown>;
}
