import type { WatchRow } from '../ops/watch.js';
import { table } from './format.js';

export function renderWatch(rows: WatchRow[]): string {
  if (!rows.length) return 'nothing is running';
  return table(
    ['ID', 'STATUS', 'AGENT', 'HEARTBEAT', 'LAST OUTPUT'],
    rows.map((r) => [
      r.id,
      r.status,
      r.agent ?? '-',
      r.heartbeat_age_s === null ? '-' : `${r.heartbeat_age_s}s ago${r.supervisor === 'dead' ? ' (dead)' : ''}`,
      r.last_line ?? r.goal,
    ]),
  );
}
