import { promises as fsp, writeFileSync, renameSync, mkdirSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';

// Crash safety invariant: a reader never sees a half-written file. Everything lazy
// writes outside git goes to a temporary name in the same directory and is renamed.

const tmpName = (path: string) => `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;

export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await fsp.mkdir(dirname(path), { recursive: true });
  const tmp = tmpName(path);
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
