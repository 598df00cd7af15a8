import type { InboxItem } from '../ops/review.js';
import { ago, table } from './format.js';
import { paintAttention } from './color.js';
import { now } from '../core/clock.js';

export function renderInbox(items: InboxItem[], filtered = false): string {
  if (!items.length) return filtered ? 'nothing in the inbox matches these filters' : 'inbox zero: nothing needs you';
  const at = now();
  return table(
    ['ID', 'NEEDS', 'SINCE', 'REASON'],
    items.map((i) => [
      i.id,
      paintAttention(i.attention.kind),
      ago(i.attention.since, at),
      `${i.attention.reason} — ${i.goal}`,
    ]),
  );
}
