import type { InboxItem } from '../ops/review.js';
import { ago, table } from './format.js';
import { paintAttention } from './color.js';

export function renderInbox(items: InboxItem[]): string {
  if (!items.length) return 'inbox zero: nothing needs you';
  const now = Date.now();
  return table(
    ['ID', 'NEEDS', 'SINCE', 'REASON'],
    items.map((i) => [i.id, paintAttention(i.kind), ago(i.since, now), `${i.reason} — ${i.goal}`]),
  );
}
