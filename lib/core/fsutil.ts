import {
  promises as fsp,
  writeFileSync,
  renameSync,
  mkdirSync,
  unlinkSync,
  openSync,
  closeSync,
  fstatSync,
  readSync,
  readdirSync,
  constants,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { nodeCrypto } from './crypto.js';
import { usageError } from './errors.js';

// Crash safety invariant: a reader never sees a half-written file. Everything lazy
// writes outside git goes to a temporary name in the same directory and is renamed.

const tmpName = (path: string) => `${path}.tmp-${process.pid}-${nodeCrypto().randomBytes(4).toString('hex')}`;
/** Git's own name for a half-written object: git fsck ignores it and git gc prunes it. */
export const objectTmpName = (path: string) =>
  join(dirname(path), `tmp_obj_${process.pid}_${nodeCrypto().randomBytes(4).toString('hex')}`);

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
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw e;
  }
}

// Invariant: input lazy does not control is read with a bound. At most `limit` + 1 bytes
// are read (so "too large" is known without reading the rest), and a path must name a
// regular file: it is opened non-blocking and checked with fstat, so a FIFO never blocks
// and a device (a symlink to /dev/zero) is never read.

export class ReadRefused extends Error {
  constructor(
    readonly reason: 'too_large' | 'not_regular',
    message: string,
  ) {
    super(message);
  }
}

const kindOf = (st: {
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isSocket(): boolean;
  isDirectory(): boolean;
}) =>
  st.isFIFO()
    ? 'a FIFO'
    : st.isCharacterDevice()
      ? 'a device'
      : st.isSocket()
        ? 'a socket'
        : st.isDirectory()
          ? 'a directory'
          : 'not a regular file';

/** Opens a path for reading: regular files only (ENOENT and friends are thrown as is). */
function openRegular(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw new ReadRefused('not_regular', `${path} is ${kindOf(st)}, not a regular file`);
  }
  return fd;
}

/** Reads an open descriptor (a regular file, or a pipe such as stdin) to its end, refusing more than `limit` bytes. */
export function readBoundedFd(fd: number, limit: number, what: string): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(Math.min(64 * 1024, limit + 1 - total));
    let n: number;
    try {
      n = readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10); // a non-blocking pipe with nothing yet
      continue;
    }
    if (n === 0) return Buffer.concat(chunks, total);
    chunks.push(buf.subarray(0, n));
    total += n;
    if (total > limit) throw new ReadRefused('too_large', `${what} is larger than ${limit} bytes`);
  }
}

/** A regular file's contents, at most `limit` bytes. */
export function readBoundedFile(path: string, limit: number, what = path): Buffer {
  const fd = openRegular(path);
  try {
    return readBoundedFd(fd, limit, what);
  } finally {
    closeSync(fd);
  }
}

/** A JSON file lazy wrote where others could reach it, read bounded; undefined when absent, too large or not JSON. */
export function readJsonFile<T>(path: string, limit: number): T | undefined {
  try {
    return JSON.parse(readBoundedFile(path, limit).toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

const STATE_LIMIT = 8 << 20;

/** A state file a trigger keeps for itself (a cache): null when absent, unreadable or not the shape `valid` accepts. */
export function readStateFile<T>(path: string, valid: (o: T) => boolean): T | null {
  try {
    const o = JSON.parse(readBoundedFile(path, STATE_LIMIT).toString('utf8')) as T;
    return o && valid(o) ? o : null;
  } catch {
    return null;
  }
}

/** Every `*.json` record in a folder that `read` accepts (a missing folder holds none); one file per item. */
export function readRecords<T>(dir: string, read: (path: string) => T | null | undefined): T[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.json'))
    .map((n) => read(join(dir, n)))
    .filter((x): x is T => x !== null && x !== undefined);
}

/** Writes a state file atomically; one that cannot be written only costs the next command the work again. */
export function writeStateFile(path: string, value: unknown): void {
  try {
    writeFileAtomicSync(path, JSON.stringify(value));
  } catch {
    /* done again next time */
  }
}

/** The last `maxBytes` of a regular file (a log), and whether earlier bytes were left out. */
export function readTail(path: string, maxBytes: number): { text: string; cut: boolean } {
  const fd = openRegular(path);
  try {
    const size = fstatSync(fd).size;
    const len = Math.min(size, maxBytes);
    const buf = Buffer.allocUnsafe(len);
    const n = readSync(fd, buf, 0, len, size - len);
    return { text: buf.subarray(0, n).toString('utf8'), cut: size > len };
  } finally {
    closeSync(fd);
  }
}

/** The most text one human input may hold (a prompt, a comment, feedback): stored documents stay small. */
export const MAX_TEXT_BYTES = 512 * 1024;

/**
 * Human text from an open descriptor (stdin) or a path; more than
 * MAX_TEXT_BYTES, or not a regular file, is a usage error.
 */
export function readTextInput(source: number | string, what: string): string {
  try {
    const data =
      typeof source === 'number'
        ? readBoundedFd(source, MAX_TEXT_BYTES, what)
        : readBoundedFile(source, MAX_TEXT_BYTES, what);
    return data.toString('utf8');
  } catch (e) {
    if (e instanceof ReadRefused) {
      const hint = e.reason === 'too_large' ? '. Put long material in a file in the repository and refer to it' : '';
      throw usageError(`${e.message}${hint}`, { limit: MAX_TEXT_BYTES });
    }
    throw e;
  }
}
