import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFileAtomicSync } from './fsutil.js';
import { join } from 'node:path';
import { randomId } from './ids.js';
import { thisHost } from './proc.js';

// Where a turn runs: the machine's name and the clone. A host name alone is too weak: two clones
// on one machine share it, and a recreated container keeps its clone under a new one. Each clone
// draws its own id once (`<common git dir>/lazy/clone`, never pushed); every move that names a host
// also names the clone, and "here" is judged by the clone first.

export interface Place {
  host: string;
  clone: string;
}

const ids = new Map<string, string>();
const VALID = /^[a-z0-9]{8,64}$/;

/** This clone's id, drawn on first use; linked worktrees share it (it lives in the common git dir). */
export function cloneId(lazyDir: string): string {
  const known = ids.get(lazyDir);
  if (known) return known;
  const file = join(lazyDir, 'clone');
  let id = '';
  try {
    id = readFileSync(file, 'utf8').trim();
  } catch {
    /* not drawn yet */
  }
  if (!VALID.test(id)) {
    mkdirSync(lazyDir, { recursive: true });
    // Written whole, then linked into place: two first commands racing agree on the first id, and neither
    // ever reads a half-written one.
    const temp = `${file}.${process.pid}.${randomId(8)}`;
    writeFileSync(temp, `${randomId(16)}\n`);
    try {
      linkSync(temp, file);
    } catch {
      /* drawn meanwhile (or a bad one is there: it is replaced below) */
    } finally {
      rmSync(temp, { force: true });
    }
    id = readFileSync(file, 'utf8').trim();
    if (!VALID.test(id)) {
      // Not an id (a file broken by hand): drawn again, in place.
      id = randomId(16);
      writeFileAtomicSync(file, `${id}\n`);
    }
  }
  ids.set(lazyDir, id);
  return id;
}

export const placeOf = (r: { lazyDir: string }): Place => ({ host: thisHost(), clone: cloneId(r.lazyDir) });

/** What a recorded move says of where it ran (a changelog entry, a lease). */
export interface Stamped {
  host?: string | null;
  clone?: string | null;
}

/** Whether a move was made in this clone: by its clone id; an entry older than clone ids, by its host name. */
export const madeHere = (e: Stamped, here: Place): boolean =>
  e.clone ? e.clone === here.clone : !e.host || e.host === here.host;

/** How a message names where a move ran, when it was not here: its host, or another clone on this one. */
export const placeName = (e: Stamped, here: Place): string =>
  e.host && e.host !== here.host ? e.host : `another clone on ${e.host || here.host}`;
