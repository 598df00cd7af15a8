// YAML codec for stored task documents.
//
// Everything lazy writes goes through `encodeYaml`, which emits one canonical
// block-YAML subset. `fastDecodeYaml` recognises exactly that subset (~30x
// cheaper than the `yaml` package); any other text goes to the `yaml` package,
// which stays the authority on what a document means.
import type { DocumentOptions, ParseOptions, SchemaOptions } from 'yaml';
import type { Json } from '../core/json.js';

export class YamlError extends Error {
  line?: number;
  constructor(message: string, line?: number) {
    super(message);
    this.name = 'YamlError';
    if (line !== undefined) this.line = line;
  }
}

export const MAX_DOCUMENT_BYTES = 1024 * 1024;

/** Deeper nesting is refused by the encoder and left to the library by the fast decoder. */
const MAX_DEPTH = 100;
/** The yaml library rejects implicit keys whose `:` is more than 1024 chars from the key start. */
const MAX_KEY_CHARS = 1024;

// ---------------------------------------------------------------- character rules
// These rules are shared by the encoder and the fast decoder, so the decoder
// accepts what the encoder emits and nothing that could read differently.

/** YAML 1.2 core words, plus the YAML 1.1 booleans so older readers agree too. */
const RESERVED = /^(?:null|true|false|yes|no|on|off|y|n)$/i;
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** Plain scalars start with a letter or `_` (never an indicator, digit, sign, `.` or `~`),
 *  and contain no controls, NBSP, line/paragraph separators, BOM, non-characters or
 *  surrogates (so astral characters are always quoted). */
const PLAIN = /^[A-Za-z_](?:[^\x00-\x1f\x7f-\xa0\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff :]|:(?=[^ ])| (?=[^#]))*$/;
/** A literal-block line may not start with a tab, end in whitespace, or hold controls
 *  other than tab or lone surrogates (which cannot round-trip through UTF-8). */
const BAD_BLOCK_LINE =
  /^\t|[ \t]$|[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Characters JSON.stringify leaves raw but that we escape for YAML safety and readability. */
const EXTRA_ESCAPES = /[\x7f-\xa0\u2028\u2029\ufeff\ufffe\uffff]/g;
/** A double-quoted scalar on one line using only JSON escapes; its value is then JSON.parse's. */
const QUOTED_SRC = String.raw`"(?:[^"\\\x00-\x1f\x7f-\xa0\u2028\u2029\ufeff\ufffe\uffff]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"`;
const QUOTED_AT = new RegExp(QUOTED_SRC, 'y');
const QUOTED_ALL = new RegExp(`^${QUOTED_SRC}$`);
const KEY_AT = /[A-Za-z_][A-Za-z0-9_-]*/y;
/** Exactly the number syntax JSON.stringify produces; all of it is an int or float in YAML core. */
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:e[+-][0-9]+)?$/;
const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const BLOCK_HEADER = /^\|(2?)([-+]?)$/;

function isPlainSafe(s: string): boolean {
  return PLAIN.test(s) && (s.length > 5 || !RESERVED.test(s));
}

function quote(s: string): string {
  return JSON.stringify(s).replace(EXTRA_ESCAPES, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function isPlainObject(v: unknown): v is { [k: string]: Json } {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

// ---------------------------------------------------------------- encoder

export function encodeYaml(value: { [k: string]: Json }): string {
  if (!isPlainObject(value)) throw new YamlError('top level of a document must be a plain object');
  return Object.keys(value).length === 0 ? '{}\n' : encodeMap(value, '', 0);
}

function encodeMap(obj: { [k: string]: Json }, ind: string, depth: number): string {
  let out = '';
  for (const [key, v] of Object.entries(obj)) {
    const k = PLAIN_KEY.test(key) && !RESERVED.test(key) ? key : quote(key);
    if (k.length > MAX_KEY_CHARS) throw new YamlError(`key longer than ${MAX_KEY_CHARS} characters`);
    out += ind + k + ':' + encodeValue(v, ind, depth);
  }
  return out;
}

function encodeSeq(arr: Json[], ind: string, depth: number): string {
  let out = '';
  for (const item of arr) {
    const nested =
      item !== null &&
      typeof item === 'object' &&
      (Array.isArray(item) ? item.length > 0 : Object.keys(item).length > 0);
    // Compact form: `- key: v` / `- - x`; the dash stands in for the child's first indentation.
    out += nested
      ? ind + '- ' + encodeValue(item, ind, depth).slice(ind.length + 3)
      : ind + '-' + encodeValue(item, ind, depth);
  }
  return out;
}

/** Text following `key:` or `-` (leading space or newline included), ending with "\n". */
function encodeValue(v: Json, ind: string, depth: number): string {
  if (v === null) return ' null\n';
  switch (typeof v) {
    case 'boolean':
      return v ? ' true\n' : ' false\n';
    case 'number':
      if (!Number.isFinite(v)) throw new YamlError(`cannot encode non-finite number ${v}`);
      return ' ' + JSON.stringify(v) + '\n';
    case 'string':
      return encodeString(v, ind);
    case 'object':
      if (depth >= MAX_DEPTH) throw new YamlError(`nesting deeper than ${MAX_DEPTH} levels`);
      if (Array.isArray(v)) return v.length === 0 ? ' []\n' : '\n' + encodeSeq(v, ind + '  ', depth + 1);
      if (isPlainObject(v)) return Object.keys(v).length === 0 ? ' {}\n' : '\n' + encodeMap(v, ind + '  ', depth + 1);
  }
  throw new YamlError(`cannot encode ${typeof v} value`);
}

function encodeString(s: string, ind: string): string {
  if (isPlainSafe(s)) return ' ' + s + '\n';
  if (!s.includes('\n')) return ' ' + quote(s) + '\n';
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 10) end--;
  const lines = s.slice(0, end).split('\n');
  // Literal blocks only for text whose every line survives a block scalar unchanged;
  // a leading empty line would confuse indentation detection, so those are quoted too.
  if (end === 0 || lines[0] === '' || lines.some((l) => l !== '' && BAD_BLOCK_LINE.test(l))) {
    return ' ' + quote(s) + '\n';
  }
  const trailing = s.length - end;
  let out = ' |' + (s.charCodeAt(0) === 32 ? '2' : '') + (trailing === 0 ? '-' : trailing === 1 ? '' : '+') + '\n';
  for (const line of lines) out += line === '' ? '\n' : ind + '  ' + line + '\n';
  return out + '\n'.repeat(Math.max(0, trailing - 1));
}

// ---------------------------------------------------------------- fast decoder

/** Thrown inside the fast decoder when the text leaves the canonical subset. */
const NOT_CANONICAL = Symbol('not canonical');
const bail: () => never = () => {
  throw NOT_CANONICAL;
};

interface Cursor {
  lines: string[];
  i: number;
  /** Content column of the current line when it sits after `- ` on a compact line, else -1. */
  virt: number;
}

/** Returns undefined whenever the text is not exactly what `encodeYaml` would emit. */
export function fastDecodeYaml(text: string): Json | undefined {
  if (text === '{}\n') return {};
  if (!text.endsWith('\n')) return undefined;
  const lines = text.split('\n');
  lines.pop();
  const c: Cursor = { lines, i: 0, virt: -1 };
  try {
    const value = readMap(c, 0, 0);
    return c.i === lines.length ? value : undefined;
  } catch {
    return undefined; // NOT_CANONICAL, or anything unforeseen: the full parser decides
  }
}

function next(c: Cursor): void {
  c.i++;
  c.virt = -1;
}

function indentOf(c: Cursor, line: string): number {
  if (c.virt >= 0) return c.virt;
  let k = 0;
  while (line.charCodeAt(k) === 32) k++;
  return k;
}

function readMap(c: Cursor, n: number, depth: number): { [k: string]: Json } {
  const obj: { [k: string]: Json } = {};
  while (c.i < c.lines.length) {
    const line = c.lines[c.i]!;
    const k = indentOf(c, line);
    if (k < n) break;
    if (k > n) bail();
    let p: number;
    let key: string;
    if (line.charCodeAt(n) === 34) {
      QUOTED_AT.lastIndex = n;
      if (!QUOTED_AT.test(line)) bail();
      p = QUOTED_AT.lastIndex;
      key = JSON.parse(line.slice(n, p)) as string;
    } else {
      KEY_AT.lastIndex = n;
      if (!KEY_AT.test(line)) bail();
      p = KEY_AT.lastIndex;
      key = line.slice(n, p);
      if (p - n <= 5 && RESERVED.test(key)) bail(); // e.g. the library reads `null:` as the key ""
    }
    if (p - n > MAX_KEY_CHARS || line.charCodeAt(p) !== 58 || Object.hasOwn(obj, key)) bail();
    next(c);
    let value: Json;
    if (p + 1 === line.length) value = readNested(c, n, depth);
    else if (line.charCodeAt(p + 1) === 32) value = readInline(c, line.slice(p + 2), n);
    else bail();
    // Plain assignment to "__proto__" would set the prototype instead of a key.
    if (key === '__proto__')
      Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
    else obj[key] = value;
  }
  return obj;
}

/** A non-empty collection on the lines after `key:`, indented by exactly two more spaces. */
function readNested(c: Cursor, n: number, depth: number): Json {
  const line = c.lines[c.i];
  if (line === undefined || depth >= MAX_DEPTH || indentOf(c, line) !== n + 2) bail();
  return line.charCodeAt(n + 2) === 45 ? readSeq(c, n + 2, depth + 1) : readMap(c, n + 2, depth + 1);
}

function readSeq(c: Cursor, n: number, depth: number): Json[] {
  const arr: Json[] = [];
  while (c.i < c.lines.length) {
    const line = c.lines[c.i]!;
    const k = indentOf(c, line);
    if (k < n) break;
    if (k > n || line.charCodeAt(n) !== 45 || line.charCodeAt(n + 1) !== 32) bail();
    const p = n + 2;
    const nestedSeq = line.charCodeAt(p) === 45 && line.charCodeAt(p + 1) === 32;
    if (nestedSeq || startsEntry(line, p)) {
      if (depth >= MAX_DEPTH) bail();
      c.virt = p;
      arr.push(nestedSeq ? readSeq(c, p, depth + 1) : readMap(c, p, depth + 1));
    } else {
      next(c);
      arr.push(readInline(c, line.slice(p), n));
    }
  }
  return arr;
}

/** Does a mapping entry (`key:` then space or end of line) start at column p? */
function startsEntry(line: string, p: number): boolean {
  const re = line.charCodeAt(p) === 34 ? QUOTED_AT : KEY_AT;
  re.lastIndex = p;
  if (!re.test(line)) return false;
  const end = re.lastIndex;
  return line.charCodeAt(end) === 58 && (end + 1 === line.length || line.charCodeAt(end + 1) === 32);
}

/** A value written on the same line as its key or dash; n is the parent's indentation. */
function readInline(c: Cursor, v: string, n: number): Json {
  switch (v) {
    case 'null':
      return null;
    case 'true':
      return true;
    case 'false':
      return false;
    case '[]':
      return [];
    case '{}':
      return {};
  }
  const ch = v.charCodeAt(0);
  if (ch === 34) {
    if (!QUOTED_ALL.test(v)) bail();
    return JSON.parse(v) as string;
  }
  if (ch === 124) return readBlock(c, v, n);
  if (ch === 45 || (ch >= 48 && ch <= 57)) {
    if (!NUMBER.test(v)) bail();
    // Same functions the yaml library uses for core ints and floats.
    return INTEGER.test(v) ? parseInt(v, 10) : parseFloat(v);
  }
  if (!isPlainSafe(v)) bail();
  return v;
}

function hasIndent(line: string, ind: number): boolean {
  for (let j = 0; j < ind; j++) if (line.charCodeAt(j) !== 32) return false;
  return line.length > ind;
}

/** A literal block scalar whose content is indented two spaces past its parent. */
function readBlock(c: Cursor, header: string, n: number): string {
  const m = BLOCK_HEADER.exec(header);
  if (!m) bail();
  const ind = n + 2;
  const body: string[] = [];
  for (; c.i < c.lines.length; c.i++) {
    const line = c.lines[c.i]!;
    if (line === '') body.push('');
    else if (hasIndent(line, ind)) body.push(line.slice(ind));
    else break;
  }
  let trailing = 0;
  for (; body.length > 0 && body[body.length - 1] === ''; trailing++) body.pop();
  // The indentation indicator is present exactly when the first line starts with a space.
  const first = body[0];
  if (first === undefined || first === '' || (first.charCodeAt(0) === 32) !== (m[1] === '2')) bail();
  for (const l of body) if (l !== '' && BAD_BLOCK_LINE.test(l)) bail();
  const chomp = m[2];
  if ((chomp === '+') !== trailing > 0) bail();
  const text = body.join('\n');
  return chomp === '-' ? text : text + '\n'.repeat(trailing + 1);
}

// ---------------------------------------------------------------- full-parser fallback

type YamlModule = typeof import('yaml');
let yamlModule: Promise<YamlModule> | undefined;
/** Fallback parse options; each one closes a way for a document to mean more than JSON data. */
const SAFE_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.2',
  schema: 'core',
  merge: false, // `<<` stays an ordinary key
  resolveKnownTags: false, // !!binary, !!timestamp, !!set, !!omap ... become unresolved-tag warnings
  uniqueKeys: false, // the library's check is quadratic (60k keys: 22 s); findDuplicateKey does it linearly
  stringKeys: true, // keys are read as strings; collection keys are errors
  strict: true,
  intAsBigInt: false,
  logLevel: 'error', // warnings come back to us instead of process.emitWarning ('silent' would drop MULTIPLE_DOCS)
};

/** The library spends ~1 KB and a stack frame per nesting level (1 MiB of `[` costs ~9 s and ~1 GB),
 *  so the fallback refuses text that could nest deeply. Canonical documents never get here. */
const MAX_FLOW_OPENERS = 10_000;
const MAX_INDICATORS_PER_LINE = 1_000;

export async function decodeYaml(text: string, opts: { maxBytes?: number } = {}): Promise<Json> {
  const max = opts.maxBytes ?? MAX_DOCUMENT_BYTES;
  // UTF-8 takes one to three bytes per UTF-16 unit, so only count when the bounds disagree.
  if (text.length > max || (text.length * 3 > max && Buffer.byteLength(text, 'utf8') > max)) {
    throw new YamlError(`document is larger than ${max} bytes`);
  }
  const fast = fastDecodeYaml(text);
  if (fast !== undefined) return fast;
  checkNestingBudget(text);
  const YAML = await (yamlModule ??= import('yaml'));
  const lineCounter = new YAML.LineCounter();
  let value: unknown;
  try {
    const doc = YAML.parseDocument(text, { ...SAFE_OPTIONS, lineCounter });
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem) throw new YamlError(problem.message, problem.linePos?.[0].line);
    // A %YAML 1.1 directive would not change how we read the text, so refuse rather than misread.
    if (doc.directives?.yaml.version !== '1.2') throw new YamlError('only YAML 1.2 documents are supported');
    const dup = findDuplicateKey(YAML, doc);
    if (dup) throw new YamlError(`duplicate key ${JSON.stringify(dup.key)}`, lineCounter.linePos(dup.offset).line);
    value = doc.toJS({ maxAliasCount: 0 }); // 0 = any alias throws, so alias bombs cannot expand
  } catch (e) {
    throw e instanceof YamlError ? e : new YamlError(e instanceof Error ? e.message : String(e));
  }
  assertJson(value);
  return value;
}

function checkNestingBudget(text: string): void {
  let openers = 0;
  let indicators = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const opener = c === 91 || c === 123; // [ {
    const indicator = (c === 45 || c === 58 || c === 63) && !(text.charCodeAt(i + 1) > 32); // - : ? before blank/EOF
    openers += opener ? 1 : 0;
    indicators = c === 10 ? 0 : indicators + (indicator ? 1 : 0);
    if (openers > MAX_FLOW_OPENERS || indicators > MAX_INDICATORS_PER_LINE) {
      const line = text.slice(0, i).split('\n').length;
      throw new YamlError('document nests too deeply (too many collection indicators)', line);
    }
  }
}

/** Keys are all strings here (stringKeys), so a Set per mapping finds repeats in linear time. */
function findDuplicateKey(YAML: YamlModule, doc: ReturnType<YamlModule['parseDocument']>) {
  let dup: { key: unknown; offset: number } | undefined;
  YAML.visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        const k = YAML.isScalar(key) ? key.value : key;
        if (seen.has(k)) {
          dup = { key: k, offset: YAML.isNode(key) ? (key.range?.[0] ?? 0) : 0 };
          return YAML.visit.BREAK;
        }
        seen.add(k);
      }
      return undefined;
    },
  });
  return dup;
}

/** Core-schema output is JSON data except for .inf/.nan; this also guards against library surprises. */
function assertJson(v: unknown): asserts v is Json {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || Number.isFinite(v)) return;
  if (Array.isArray(v) || isPlainObject(v)) for (const x of Object.values(v)) assertJson(x);
  else throw new YamlError(`${typeof v === 'number' ? v : Object.prototype.toString.call(v)} is not JSON data`);
}
