import * as validators from '#validators';
import type { Validator } from '#validators';
import { invalidData, LazyError, usageError } from '../core/errors.js';
import { decodeYaml, encodeYaml, MAX_DOCUMENT_BYTES, YamlError } from './yaml.js';
import type { EntryKind } from '../model/docs.js';
import type { Json } from '../core/json.js';

// Invariant: no document is committed or believed without passing its schema.

export type DocKind = 'task' | 'session' | 'turn' | 'statusChange' | 'violation' | 'decision' | 'config' | 'lease';

const byKind: Record<DocKind, Validator> = validators;

/** The schema of each append-only entry directory. */
export const ENTRY_SCHEMA: Record<EntryKind, DocKind> = {
  turns: 'turn',
  changelog: 'statusChange',
  violations: 'violation',
  decisions: 'decision',
};

/** Where a document lives, so an error can name the ref, the object and the failing path. */
export interface Where {
  ref: string;
  object?: string;
  file: string;
}

export function schemaError(kind: DocKind, where: Where): LazyError | undefined {
  const v = byKind[kind];
  const err = v.errors?.[0];
  if (!err) return undefined;
  const path = err.instancePath || '/';
  const hint = err.keyword === 'additionalProperties' ? ` '${String(err.params.additionalProperty)}'` : '';
  return invalidData(
    `${where.ref}:${where.file} fails the ${kind} schema at ${path}: ${err.message ?? err.keyword}${hint}`,
    {
      ref: where.ref,
      object: where.object ?? null,
      file: where.file,
      path,
      error: `${err.message ?? err.keyword}${hint}`,
    },
  );
}

export function checkDoc(kind: DocKind, doc: unknown, where: Where): void {
  if (!byKind[kind](doc)) throw schemaError(kind, where);
}

/** Parse + validate a stored YAML document. */
export async function readDoc<T>(kind: DocKind, text: string, where: Where): Promise<T> {
  let doc: Json;
  try {
    doc = await decodeYaml(text);
  } catch (e) {
    const line = e instanceof YamlError && e.line ? ` (line ${e.line})` : '';
    throw invalidData(`${where.ref}:${where.file} is not valid YAML${line}: ${(e as Error).message}`, {
      ref: where.ref,
      object: where.object ?? null,
      file: where.file,
      path: '/',
      error: (e as Error).message,
    });
  }
  checkDoc(kind, doc, where);
  return doc as T;
}

/** Drops undefined members so optional fields are absent rather than invalid. */
function compact(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(compact);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = compact(x);
    return out;
  }
  return v;
}

/** The UTF-8 bytes of every key and string in a value: the encoding holds each of them at least once. */
export function textBytes(v: unknown): number {
  if (typeof v === 'string') return Buffer.byteLength(v, 'utf8');
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + textBytes(x), 0);
  if (v && typeof v === 'object')
    return Object.entries(v).reduce((n, [k, x]) => n + Buffer.byteLength(k, 'utf8') + textBytes(x), 0);
  return 0;
}

/** A document no clone could read back (decodeYaml refuses it) is refused before it is written. */
function tooLarge(where: Where, bytes: number, atLeast: boolean): LazyError {
  return usageError(
    `${where.ref}:${where.file} would be ${atLeast ? 'at least ' : ''}${bytes} bytes; a stored document holds at ` +
      `most ${MAX_DOCUMENT_BYTES}, so nothing was written. Shorten the longest texts: put long material in a file ` +
      'in the repository and refer to it',
    { ref: where.ref, file: where.file, bytes, limit: MAX_DOCUMENT_BYTES },
  );
}

/** Validate + serialise a document about to be written; one that could not be read back is a usage error. */
export function writeDoc(kind: DocKind, doc: object, where: Where): string {
  const clean = compact(doc);
  checkDoc(kind, clean, where);
  // Counted before encoding too: the encoder is never handed megabytes (one line of several MB
  // overflows the stack in its scalar rules), and the writer gets a usage error either way.
  const least = textBytes(clean);
  if (least > MAX_DOCUMENT_BYTES) throw tooLarge(where, least, true);
  const text = encodeYaml(clean as { [k: string]: Json });
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_DOCUMENT_BYTES) throw tooLarge(where, bytes, false);
  return text;
}
