import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { usageError } from '../core/errors.js';

// --fields a,b.c: the --json document cut down to the named fields, keeping its shape (a list
// is cut row by row). Chosen over --jq: no dependency and no second query language to learn.

type Obj = { [k: string]: unknown };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `a, b.c` -> [['a'], ['b', 'c']]; an empty name is a usage error. */
export function parseFields(spec: string): string[][] {
  const names = spec.split(',').map((s) => s.trim());
  if (!names.length || names.some((n) => !n || n.split('.').some((p) => !p)))
    throw usageError(`--fields takes field names separated by commas, e.g. --fields id,status (got '${spec}')`);
  return names.map((n) => n.split('.'));
}

/** The keys a step of a path may name: the union over the rows (a list) or the one document. */
const keysOf = (values: unknown[]) => [...new Set(values.filter(isObj).flatMap((v) => Object.keys(v)))];

/** Each row of a list, or the document itself, cut down to the fields; an unknown field is a usage error. */
export function pickFields(value: unknown, paths: string[][]): unknown {
  const rows = Array.isArray(value) ? value : [value];
  for (const p of paths) check(rows, p);
  const cut = rows.map((r) => paths.reduce<unknown>((acc, p) => copyPath(r, acc, p), isObj(r) ? {} : r));
  return Array.isArray(value) ? cut : cut[0];
}

/** Every step of the path must be a key some row has where that row is an object (a null stops the walk). */
function check(rows: unknown[], path: string[]): void {
  let level = rows;
  for (let i = 0; i < path.length; i++) {
    const objects = level.filter(isObj);
    if (!objects.length) return; // nulls, or no rows at all: nothing to name the fields against
    const known = keysOf(objects);
    if (!known.includes(path[i]!)) {
      const where = i ? `${path.slice(0, i).join('.')} has` : 'the output has';
      throw usageError(`unknown field '${path.join('.')}': ${where} ${known.join(', ')}`, {
        field: path.join('.'),
        known,
      });
    }
    level = objects.flatMap((o) => o[path[i]!]); // a list of objects (turns.role) is walked element by element
  }
}

/** Copies the value at `path` from `src` into `dst`, building the objects on the way. */
function copyPath(src: unknown, dst: unknown, path: string[]): unknown {
  if (!isObj(src) || !isObj(dst)) return dst;
  const [head, ...rest] = path as [string, ...string[]];
  if (!(head in src)) return dst;
  const v = src[head];
  const into = (e: unknown, d: unknown) => (isObj(e) ? copyPath(e, isObj(d) ? d : {}, rest) : e);
  const prior = dst[head];
  if (!rest.length) dst[head] = v;
  else if (Array.isArray(v)) dst[head] = v.map((e, i) => into(e, Array.isArray(prior) ? prior[i] : undefined));
  else dst[head] = into(v, prior);
  return dst;
}

type Schema = { [k: string]: unknown };

/**
 * The top-level fields `command` may print, from the schemas whose title names it (`lazy a|b --json`),
 * so a misspelt field is refused before the command acts; undefined when no schema is found.
 */
export function documentedFields(command: string, from = fileURLToPath(import.meta.url)): string[] | undefined {
  const dir = schemaDir(from);
  if (!dir) return undefined;
  const docs = new Map<string, Schema>();
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.schema.json')))
    docs.set(f, JSON.parse(readFileSync(join(dir, f), 'utf8')) as Schema);
  const mine = [...docs.values()].filter((d) =>
    /^lazy ([a-z|-]+) /.exec(String(d.title))?.[1]!.split('|').includes(command),
  );
  if (!mine.length) return undefined;
  return [...new Set(mine.flatMap((d) => topFields(d, docs)))];
}

/** The properties of an object schema, of a list's rows, through $ref (a sibling file), allOf and oneOf. */
function topFields(s: Schema, docs: Map<string, Schema>): string[] {
  const ref = typeof s.$ref === 'string' ? docs.get(s.$ref.split('#')[0]!) : undefined;
  const parts = [s.items, ref, ...((s.allOf as Schema[]) ?? []), ...((s.oneOf as Schema[]) ?? [])];
  const own = isObj(s.properties) ? Object.keys(s.properties) : [];
  return [...own, ...parts.filter(isObj).flatMap((p) => topFields(p, docs))];
}

/** schemas/output, found upwards from this module (lib/output/ unbundled, dist/ bundled). */
function schemaDir(from: string): string | undefined {
  for (let d = dirname(from); d !== dirname(d); d = dirname(d)) {
    const dir = join(d, 'schemas', 'output');
    if (existsSync(dir)) return dir;
  }
  return undefined;
}

/** Refuses, before the command runs, a field no schema of `command` documents at the top level. */
export function precheckFields(command: string, paths: string[][]): void {
  const known = documentedFields(command);
  if (!known) return;
  const unknown = paths.find((p) => !known.includes(p[0]!));
  if (unknown)
    throw usageError(`unknown field '${unknown.join('.')}': lazy ${command} --json has ${known.join(', ')}`, {
      field: unknown.join('.'),
      known,
    });
}
