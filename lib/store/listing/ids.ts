import { readFileSync } from 'node:fs';
import { deltaOver, indexPath, VERSION, type Header } from './files.js';

const NL = 10;
const QUOTE = 34;

/**
 * Ids the listing index last saw that start with `prefix`, rows then unreadable tasks: completion's candidates, and
 * doctor's evidence that a task existed before its ref vanished. Read from the base's bytes (a row line starts
 * `["<id>"`, and an id needs no escape), so 100,000 rows cost no line strings and no parse; the delta is laid over
 * as a list's load does.
 */
export function indexedIds(lazyDir: string, prefix = ''): string[] {
  const rows = new Set<string>();
  const bad = new Set<string>();
  let gen = '';
  try {
    const buf = readFileSync(indexPath(lazyDir));
    const first = buf.indexOf(NL);
    const h = JSON.parse(buf.toString('utf8', 0, first < 0 ? buf.length : first)) as Header;
    if (h.version === VERSION) {
      gen = h.gen;
      for (const b of h.bad) bad.add(b.id);
      // Searched as bytes, never decoded whole: with a prefix (completion's word so far) the search skips straight
      // to the few rows that have it.
      const needle = Buffer.from(`\n["${prefix}`);
      for (let at = buf.indexOf(needle); at >= 0; at = buf.indexOf(needle, at + 3)) {
        const close = buf.indexOf(QUOTE, at + 3);
        if (close > 0) rows.add(buf.toString('latin1', at + 3, close));
      }
    }
  } catch {
    /* no base yet, or unreadable: the delta alone cannot be trusted either */
  }
  const d = deltaOver(lazyDir, gen);
  if (d) {
    for (const t of d.rows) (rows.add(t[0]), bad.delete(t[0]));
    for (const b of d.bad) (rows.delete(b.id), bad.add(b.id));
    for (const id of d.gone) (rows.delete(id), bad.delete(id));
  }
  return [...rows, ...bad].filter((id) => id.startsWith(prefix));
}
