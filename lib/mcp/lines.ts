import { Transform, type TransformCallback } from 'node:stream';

// The server's stdin, one JSON-RPC message per line, before the SDK reads it. The SDK's reader
// copies its whole buffer on every chunk (a long line costs time quadratic in its length) and,
// past 10 MiB, closes the transport, so the server used to end silently with exit 0. Here a line
// longer than the limit is dropped as it streams (never held), answered with a JSON-RPC error,
// and the next line is served; a line within it reaches the SDK whole, in one piece.

/**
 * The longest message (one line, in bytes) `lazy mcp` reads. Far above what lazy can store
 * (a text is at most MAX_TEXT_BYTES, a document MAX_DOCUMENT_BYTES, even with JSON's escapes),
 * far below what would cost the server its memory.
 */
export const MCP_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** JSON-RPC's code for a request that is not a valid one. */
export const INVALID_REQUEST = -32600;

/** How much of a dropped line's start and end is kept to find its id. */
const EDGE_BYTES = 512;

export interface Oversize {
  /** The request's id, when its first or last bytes name it; undefined when they do not. */
  id: string | number | undefined;
  bytes: number;
  limit: number;
}

/** A simple member: a key and a string value with no escapes, as `"jsonrpc":"2.0"` or `"method":"tools/call"`. */
const MEMBER = String.raw`"[A-Za-z_]+"\s*:\s*"[^"\\]*"`;
const ID = String.raw`"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,256}")`;
/** `{"jsonrpc":"2.0","id":7,…`: the id among the first members. */
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:${MEMBER}\s*,\s*)*${ID}\s*[,}]`);
/** `…,"jsonrpc":"2.0","id":7}` (the SDK's own order): the id among the last members, so at the top level. */
const ID_LAST = new RegExp(String.raw`[{,]\s*${ID}\s*(?:,\s*${MEMBER}\s*)*\}\s*$`);

/** The id of a request from its first and last bytes; undefined unless one of them shows it plainly. */
export function idOf(head: string, tail: string): string | number | undefined {
  const m = ID_FIRST.exec(head) ?? ID_LAST.exec(tail);
  if (!m) return undefined;
  try {
    const v = JSON.parse(m[1]!) as unknown;
    return typeof v === 'string' || typeof v === 'number' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The JSON-RPC error an over-limit request is answered with (no id when none was found: the SDK's schema wants one or none). */
export function oversizeReply(o: Oversize): string {
  const message =
    `lazy mcp: the message is ${o.bytes} bytes, over the ${o.limit}-byte limit on one message; ` +
    'it was not read, and nothing was done';
  const reply = {
    jsonrpc: '2.0',
    ...(o.id !== undefined ? { id: o.id } : {}),
    error: { code: INVALID_REQUEST, message, data: { bytes: o.bytes, limit: o.limit } },
  };
  return JSON.stringify(reply) + '\n';
}

/**
 * Passes each complete line (newline included) of at most `limit` bytes downstream as one
 * chunk, and calls `over` for each longer one, which is never buffered: at most `limit` bytes
 * of a line are held, and of a dropped line only its first and last EDGE_BYTES.
 */
export class LineLimit extends Transform {
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** The line being dropped: its length so far, its first bytes and its latest ones. */
  private dropping: { bytes: number; head: Buffer; tail: Buffer } | null = null;

  constructor(
    readonly limit: number,
    private readonly over: (o: Oversize) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(10, at);
      const end = nl === -1 ? chunk.length : nl;
      this.append(chunk.subarray(at, end));
      if (nl === -1) break;
      this.endLine();
      at = nl + 1;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    // A last line with no newline: the SDK would never read it, so it is not passed on, but an
    // over-limit one is still answered.
    if (this.dropping) this.endLine();
    this.held = [];
    done();
  }

  /** Part of the current line (no newline in it). */
  private append(part: Buffer): void {
    if (!part.length) return;
    if (!this.dropping && this.heldBytes + part.length <= this.limit) {
      this.held.push(part);
      this.heldBytes += part.length;
      return;
    }
    if (!this.dropping) {
      // The line just went over: what was held is let go, all but its first bytes.
      const start = Buffer.concat([...this.held, part.subarray(0, EDGE_BYTES)]);
      this.dropping = {
        bytes: this.heldBytes,
        head: Buffer.from(start.subarray(0, EDGE_BYTES)),
        tail: Buffer.alloc(0),
      };
      this.held = [];
      this.heldBytes = 0;
    }
    const d = this.dropping;
    d.bytes += part.length;
    // Copies, so the chunk they came from can be collected.
    d.tail =
      part.length >= EDGE_BYTES
        ? Buffer.from(part.subarray(part.length - EDGE_BYTES))
        : Buffer.concat([d.tail, part]).subarray(-EDGE_BYTES);
  }

  private endLine(): void {
    if (this.dropping) {
      const { bytes, head, tail } = this.dropping;
      this.dropping = null;
      this.over({ id: idOf(head.toString('utf8'), tail.toString('utf8')), bytes, limit: this.limit });
      return;
    }
    this.held.push(Buffer.from('\n'));
    this.push(Buffer.concat(this.held));
    this.held = [];
    this.heldBytes = 0;
  }
}
