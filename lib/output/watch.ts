import type { WatchRow } from '../ops/watch.js';
import { table } from './format.js';
import { statusCell } from './tasks.js';
import { renderEvent } from './stream.js';
import { now } from '../core/clock.js';

export function renderWatch(rows: WatchRow[]): string {
  if (!rows.length) return 'nothing is running';
  const at = now();
  return table(
    ['ID', 'STATUS', 'AGENT', 'HEARTBEAT', 'LAST OUTPUT'],
    rows.map((r) => [
      r.id,
      statusCell(r, at),
      r.agent ?? '-',
      r.heartbeat_age_s === null ? '-' : `${r.heartbeat_age_s}s ago${r.supervisor === 'dead' ? ' (dead)' : ''}`,
      (r.last_event && renderEvent(r.last_event)) ?? r.last_line ?? r.goal,
    ]),
  );
}
