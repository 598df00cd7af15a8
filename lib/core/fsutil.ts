import { promises as fsp, writeFileSync, renameSync, mkdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

// Crash safety invariant: a reader never sees a half-written file. Everything lazy
// writes outside git goes to a temporary name in the same directory and is renamed.

const tmpName = (path: string) => `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
/** Git's own name for a half-written object: git fsck ignores it and git gc prunes it. */
export const objectTmpName = (path: string) => join(dirname(path), `tmp_obj_${process.pid}_${randomBytes(4).toString('hex')}`);

export async function writeFileAtomic(path: string, data: string | Uint8Array, tmp = tmpName(path)): Promise<void> {
  await fsp.mkdir(dirname(path), { recursive: true });
  try {
    await fsp.writeFile(tmp, data);
    await fsp.rename(tmp, path);
  } catch (e) {
    await fsp.unlink(tmp).catch(() => {});
    throw e;
  }
}

export function writeFileAtomicSync(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tmpName(path);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (e) {
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw e;
  }
}
