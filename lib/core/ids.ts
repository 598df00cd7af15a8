import { nodeCrypto } from './crypto.js';

// Lowercase base32 without i, l, o, u: easy to read aloud and to type, and always
// safe in ref and branch names.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
export const TASK_ID_LENGTH = 8;
export const MIN_PREFIX = 4;
export const TASK_ID_RE = /^[0-9abcdefghjkmnpqrstvwxyz]{8}$/;

export function randomId(length = TASK_ID_LENGTH): string {
  const bytes = nodeCrypto().randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! & 31];
  return out;
}

export const isTaskId = (s: string) => TASK_ID_RE.test(s);
export const isIdPrefix = (s: string) => s.length >= MIN_PREFIX && s.length <= TASK_ID_LENGTH && /^[0-9a-z]+$/.test(s);
