import type { LogLine } from '../ops/log.js';
import { fitted, pad, shortTime } from './format.js';

export function renderLog(lines: LogLine[]): string {
  return lines
    .map((l) => {
      const merge = l.parents.length > 1 ? ' [merge]' : '';
      const st = l.to ? `  (${l.from ?? 'new'} -> ${l.to})` : '';
      const where = l.host ? ` @${l.host}` : '';
      const author = pad(fitted(l.author, 16), 16);
      return `${l.commit.slice(0, 10)} ${shortTime(l.date)} ${author}${where} ${l.subject}${merge}${st}`;
    })
    .join('\n');
}
