import type { InboxItem } from '../ops/inbox.js';
import { ago, table } from './format.js';
import { paintAttention, style } from './color.js';
import { now } from '../core/clock.js';

export function renderInbox(items: InboxItem[], filtered = false): string {
  if (!items.length) return filtered ? 'nothing in the inbox matches these filters' : 'inbox zero: nothing needs you';
  const at = now();
  // Off a terminal the time as stored (ISO), as list prints it for scripts.
  const since = style().tty ? (iso: string) => ago(iso, at) : (iso: string) => iso;
  return table(
    ['ID', 'NEEDS', 'SINCE', 'REASON'],
    items.map((i) => [
      i.id,
      paintAttention(i.attention.kind),
      since(i.attention.since),
      `${i.attention.reason} — ${i.goal}`,
    ]),
  );
}
