import { sanitizeLine } from './sanitize.js';

// The end of a command's output, kept as it streams and bounded however much it prints: what lazy run records of a
// person's command (lib/ops/run.ts). A turn is a stored document of bounded size, and a reviewer reads the end of a
// test run for its verdict; the rest was on the person's terminal.

/** At most this many lines and bytes of the end are kept. */
export const TAIL_LINES = 40;
export const TAIL_BYTES = 4096;

/** CSI and OSC sequences (colours, cursor moves, titles): noise in a record, dropped rather than escaped. */
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g;

export class Tail {
  private chunks: Buffer[] = [];
  private held = 0;
  /** Every byte seen. */
  bytes = 0;

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    this.chunks.push(chunk);
    this.held += chunk.length;
    // Twice the bound kept raw: escapes and dropped sequences shrink it, and a cut mid-character needs some slack.
    while (this.held - this.chunks[0]!.length >= TAIL_BYTES * 2) this.held -= this.chunks.shift()!.length;
  }

  /** The kept end as printable text: its last TAIL_LINES lines, then its last TAIL_BYTES bytes, on whole characters. */
  text(): string {
    const raw = Buffer.concat(this.chunks).toString('utf8');
    return boundTail(raw, this.bytes > this.held);
  }
}

/**
 * Output as a terminal would leave it, made printable and bounded: colour sequences dropped, a carriage return's line
 * ending as its last overwrite, other control characters escaped (lib/core/sanitize.ts), then the last lines and bytes.
 * `cut`: the text is already the end of something longer (its first line may be partial: dropped).
 */
export function boundTail(raw: string, cut = false): string {
  let lines = raw
    .replace(ANSI, '')
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((l) => sanitizeLine(l.slice(l.lastIndexOf('\r') + 1)));
  if (cut && lines.length > 1) lines = lines.slice(1);
  if (lines.at(-1) === '') lines.pop();
  let text = lines.slice(-TAIL_LINES).join('\n');
  const buf = Buffer.from(text, 'utf8');
  if (buf.length > TAIL_BYTES) {
    // A whole character at the start: continuation bytes (10xxxxxx) of the one the cut split are skipped.
    let at = buf.length - TAIL_BYTES;
    while (at < buf.length && (buf[at]! & 0xc0) === 0x80) at++;
    text = buf.subarray(at).toString('utf8');
    // The cut line is dropped whole when a whole one follows it.
    const nl = text.indexOf('\n');
    if (nl >= 0 && buf[at - 1] !== 0x0a) text = text.slice(nl + 1);
  }
  return text;
}
