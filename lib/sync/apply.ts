import { git } from '../core/git.js';
import { casRef } from '../store/refs.js';

// Moving many refs at once. One `update-ref --stdin` transaction is all-or-nothing; if
// any ref moved under us (a local writer was faster), fall back to one compare-and-swap
// per ref and report the ones that lost, so the caller can redo just those.

export interface RefMove {
  ref: string;
  next: string;
  old: string | null;
}

export async function moveRefs(
  cwd: string,
  moves: RefMove[],
  reason: string,
): Promise<{ moved: RefMove[]; lost: RefMove[] }> {
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
