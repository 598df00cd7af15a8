import { git } from '../core/git.js';
import { casRef } from '../store/refs.js';
import { createPacked } from '../store/packed.js';

// Moving many refs at once. One `update-ref --stdin` transaction is all-or-nothing; if
// any ref moved under us (a local writer was faster), fall back to one compare-and-swap
// per ref and report the ones that lost, so the caller can redo just those. Many new refs
// at once (a first pull) go straight into packed-refs instead (lib/store/packed.ts).

export interface RefMove {
  ref: string;
  next: string;
  old: string | null;
}

/** From this many creations in one move, they are written packed: below it loose files cost less than the rewrite. */
export const PACKED_CREATES_MIN = 100;

export async function moveRefs(
  cwd: string,
  moves: RefMove[],
  reason: string,
  /** The repository's common dir, to write many creations packed. */
  commonDir?: string,
): Promise<{ moved: RefMove[]; lost: RefMove[] }> {
  const creates = moves.filter((m) => !m.old);
  if (commonDir && creates.length >= PACKED_CREATES_MIN) {
    const packed = await createPacked(commonDir, creates);
    if (packed) {
      const lost = new Set(packed.lost);
      const rest = await moveRefs(
        cwd,
        moves.filter((m) => m.old),
        reason,
      );
      const made = creates.filter((m) => !lost.has(m.ref));
      return { moved: [...made, ...rest.moved], lost: [...creates.filter((m) => lost.has(m.ref)), ...rest.lost] };
    }
  }
  if (moves.length === 0) return { moved: [], lost: [] };
  const input =
    moves.map((m) => (m.old ? `update ${m.ref} ${m.next} ${m.old}` : `create ${m.ref} ${m.next}`)).join('\n') + '\n';
  const r = await git(['update-ref', '-m', reason, '--stdin'], { cwd, input, allowFail: true });
  if (r.code === 0) return { moved: moves, lost: [] };
  const moved: RefMove[] = [];
  const lost: RefMove[] = [];
  for (const m of moves) {
    ((await casRef(cwd, m.ref, m.next, m.old ?? null, reason)) === 'ok' ? moved : lost).push(m);
  }
  return { moved, lost };
}
