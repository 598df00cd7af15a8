import t from 'tap';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import YAML from 'yaml';
import { decodeYaml, encodeYaml, fastDecodeYaml, MAX_DOCUMENT_BYTES, YamlError } from '../../lib/store/yaml.js';
import type { Json } from '../../lib/core/json.js';
import { join } from 'node:path';
import { ROOT } from '../helpers/env.js';
import { seeded, xorshift32 } from '../helpers/seed.js';

type Obj = { [k: string]: Json };

const { seed: SEED, replay } = seeded('YAML_SEED');
const SCALE = Number(process.env.YAML_SCALE ?? 1); // YAML_SCALE=20 for a long soak
console.log(`yaml property tests: ${replay} YAML_SCALE=${SCALE}`);

const controls = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i));
const ATOMS: string[] = [
  '',
  ' ',
  '  x',
  'x ',
  ' x ',
  ': ',
  'a: b',
  'a:',
  ':',
  'a:b',
  ' #',
  'a #b',
  '#x',
  'a#b',
  '"',
  "'",
  '"q"',
  "'q'",
  '\\',
  '\\n',
  'é',
  '日本語',
  '😀',
  '\u00a0',
  'a\u00a0',
  '\u007f',
  '\u0085',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffe',
  '\ud800',
  '\udc00',
  '\t',
  'a\tb',
  '\r',
  '\r\n',
  '\n',
  '\n\n',
  '\n\n\n',
  ' \n',
  '\n ',
  '---',
  '...',
  '- x',
  '? x',
  '-',
  '?',
  'null',
  'Null',
  'NULL',
  '~',
  'true',
  'False',
  'TRUE',
  'yes',
  'no',
  'on',
  'off',
  'y',
  'n',
  'Y',
  '1',
  '-1',
  '1.0',
  '1e3',
  '.5',
  '-.5',
  '0x1F',
  '0o17',
  '0b1',
  '.inf',
  '-.Inf',
  '.nan',
  '1_000',
  '+12',
  '0',
  '007',
  '12:30',
  '2024-01-01',
  '<<',
  '=',
  '&a',
  '*a',
  '!tag',
  '!!str',
  '|',
  '>',
  '%',
  '@',
  '`',
  '{',
  '}',
  '[',
  ']',
  ',',
  'word',
  'two words',
  'x-y_z',
  '__proto__',
  'constructor',
  'a'.repeat(60),
  'line1\nline2',
  '  indented\nnext',
  'x\n  y',
  '\ty',
  'trailing \nline',
  'end\n',
  'multi\nline\n\n',
  ...controls,
];

function makeGen(seed: number) {
  const rand = xorshift32(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;

  function str(): string {
    const r = rand();
    if (r < 0.3) return pick(ATOMS);
    if (r < 0.4) {
      let s = '';
      for (let i = int(6); i >= 0; i--)
        s += String.fromCodePoint(pick([0x20, 0x41, 0xa0, 0x3b1, 0x4e00, 0x1f600]) + int(40));
      return s;
    }
    const sep = rand() < 0.4 ? '\n' : '';
    const parts: string[] = [];
    for (let i = 1 + int(4); i > 0; i--)
      parts.push(rand() < 0.5 ? pick(ATOMS) : pick(['word', 'Fix the bug', 'x', 'é']));
    return parts.join(sep);
  }

  function num(): number {
    const r = rand();
    let n: number;
    if (r < 0.3) n = int(1000) - 500;
    else if (r < 0.45) n = pick([0, 1, -1, 2 ** 53, -(2 ** 53), 2 ** 53 - 1, 2 ** 31, 1e20, 1e21, 1.5e300, 5e-324]);
    else if (r < 0.6) n = Math.floor((rand() - 0.5) * 2 ** 54);
    else if (r < 0.8) n = (rand() - 0.5) * 10 ** (int(40) - 20);
    else n = Math.round(rand() * 10000) / 100;
    return Object.is(n, -0) ? 0 : n;
  }

  function obj(depth: number): Obj {
    const o: Obj = {};
    for (let i = int(6); i > 0; i--) {
      const v = value(depth + 1);
      const k = str();
      if (k === '__proto__')
        Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
      else o[k] = v;
    }
    return o;
  }

  function value(depth: number): Json {
    const r = rand() * (depth > 5 ? 0.7 : 1);
    if (r < 0.05) return null;
    if (r < 0.1) return rand() < 0.5;
    if (r < 0.25) return num();
    if (r < 0.6) return str();
    if (r < 0.63) return [];
    if (r < 0.66) return {};
    if (r < 0.74) return Array.from({ length: 1 + int(4) }, () => value(depth + 1));
    if (r < 0.8) return Array.from({ length: 1 + int(3) }, () => obj(depth + 1));
    if (r < 0.84) return Array.from({ length: 1 + int(3) }, () => [value(depth + 1), value(depth + 1)]);
    return obj(depth);
  }

  function doc(): Obj {
    const o = obj(0);
    if (rand() < 0.05) {
      // deep nesting chain through maps, sequences and compact forms
      let v: Json = str();
      for (let i = 10 + int(30); i > 0; i--)
        v = rand() < 0.5 ? [v] : rand() < 0.5 ? { [str()]: v } : [{ k: v, [str()]: 1 }];
      o.deep = v;
    }
    return o;
  }

  return { doc, str, int, pick, rand };
}

// First, so the timings see warm but monomorphic code, as a real index rebuild would. The
// loops are short: the figures are printed for a reader, and no test asserts on speed.
t.test('speed (informational)', async (t) => {
  const task: Obj = {
    id: 'lz-01HZX3K9QW7',
    title: 'Make index rebuild resumable after a crash',
    status: 'in_progress',
    priority: 2,
    created: '2025-03-14T09:26:53Z',
    updated: '2025-03-15T17:02:11Z',
    assignee: 'alice',
    labels: ['index', 'reliability'],
    deps: [{ id: 'lz-01HZX2A1B2C', kind: 'blocks' }],
    estimate: 1.5,
    archived: false,
    parent: null,
    description: 'When the process dies mid-rebuild the index is left\nhalf-written. Record progress and resume.\n',
  };
  const text = encodeYaml(task);
  console.log(`typical document: ${Buffer.byteLength(text)} bytes`);
  const time = (n: number, fn: () => unknown) => {
    for (let i = 0; i < Math.min(n, 500); i++) fn();
    const start = performance.now();
    for (let i = 0; i < n; i++) fn();
    return ((performance.now() - start) / n) * 1000; // microseconds per op
  };
  const fast = time(5_000, () => fastDecodeYaml(text));
  const parse = time(500, () => YAML.parse(text));
  const json = time(5_000, () => JSON.parse(JSON.stringify(task)));
  const enc = time(5_000, () => encodeYaml(task));
  const str = time(500, () => YAML.stringify(task));
  console.log(
    `fastDecodeYaml ${fast.toFixed(2)} us, YAML.parse ${parse.toFixed(2)} us => ${(parse / fast).toFixed(0)}x faster`,
  );
  console.log(
    `encodeYaml ${enc.toFixed(2)} us, YAML.stringify ${str.toFixed(2)} us => ${(str / enc).toFixed(0)}x faster`,
  );
  console.log(`(JSON.parse(JSON.stringify) round trip for scale: ${json.toFixed(2)} us)`);
  t.pass('timings printed');
});

t.test('round trip: encode -> fast / full / yaml library all agree', async (t) => {
  const gen = makeGen(SEED);
  const failures: string[] = [];
  const seen = new Set<string>();
  const N = 4000 * SCALE;
  for (let i = 0; i < N && failures.length < 5; i++) {
    const v = gen.doc();
    const text = encodeYaml(v);
    for (const f of ['|\n', '|-\n', '|+\n', '|2', '"', '- - ', '- "', '\n\n', '"": ', ' []', ' {}', '__proto__']) {
      if (text.includes(f)) seen.add(f);
    }
    const report = (what: string, got: unknown) =>
      failures.push(`#${i} ${what}\nvalue: ${JSON.stringify(v)}\ntext:\n${text}\ngot: ${JSON.stringify(got)}`);
    const fast = fastDecodeYaml(text);
    if (fast === undefined) report('fastDecodeYaml returned undefined', fast);
    else if (!isDeepStrictEqual(fast, v)) report('fastDecodeYaml mismatch', fast);
    let lib: unknown;
    try {
      lib = YAML.parse(text);
      if (!isDeepStrictEqual(lib, v)) report('YAML.parse mismatch', lib);
    } catch (e) {
      report('YAML.parse threw', String(e));
    }
    const full = await decodeYaml(text);
    if (!isDeepStrictEqual(full, v)) report('decodeYaml mismatch', full);
  }
  t.same(failures, [], `seed ${SEED}; rerun with ${replay}`);
  t.same(
    [...seen].sort(),
    ['\n\n', '"', '"": ', ' []', ' {}', '- "', '- - ', '__proto__', '|+\n', '|-\n', '|2', '|\n'].sort(),
    'the generator exercised every emitter form',
  );
});

t.test('mutated documents: fast path never disagrees with the yaml library', async (t) => {
  const gen = makeGen(SEED ^ 0x5bd1e995);
  const TOKENS = [
    ' ',
    '  ',
    '-',
    '- ',
    ':',
    ': ',
    '#',
    ' #',
    '\n',
    '\t',
    '"',
    "'",
    '|',
    '|-',
    '|+',
    '|2',
    '>',
    '&a ',
    '*a',
    '!',
    '!!str ',
    '{',
    '}',
    '[',
    ']',
    ',',
    '\\',
    'a',
    '0',
    '1',
    '.',
    '~',
    'null',
    '?',
    '%',
    '\r',
    '---\n',
    '...\n',
    '\ufeff',
    '\u00a0',
    'e',
    '+',
    'x: y\n',
    '- a: 1\n',
    '"k": ',
  ];
  const failures: string[] = [];
  let accepted = 0;
  const N = 6000 * SCALE;
  for (let i = 0; i < N && failures.length < 5; i++) {
    let text = encodeYaml(gen.doc());
    for (let m = 1 + gen.int(3); m > 0; m--) {
      const at = gen.int(text.length + 1);
      const r = gen.rand();
      if (r < 0.5) text = text.slice(0, at) + gen.pick(TOKENS) + text.slice(at);
      else if (r < 0.8) text = text.slice(0, at) + text.slice(at + 1 + gen.int(3));
      else {
        const lines = text.split('\n');
        const j = gen.int(lines.length);
        lines.splice(j, 0, lines[gen.int(lines.length)]!);
        text = lines.join('\n');
      }
    }
    const fast = fastDecodeYaml(text);
    if (fast === undefined) continue;
    accepted++;
    try {
      const lib: unknown = YAML.parse(text, { logLevel: 'error' });
      if (!isDeepStrictEqual(fast, lib))
        failures.push(`${JSON.stringify(text)}\nfast: ${JSON.stringify(fast)}\nlib: ${JSON.stringify(lib)}`);
    } catch (e) {
      failures.push(`${JSON.stringify(text)}\nfast accepted, yaml threw: ${String(e)}`);
    }
  }
  console.log(`mutants accepted by the fast path: ${accepted}/${N}`);
  t.same(failures, [], `seed ${SEED}; rerun with ${replay}`);
});

// decode: 'same' = decodeYaml equals YAML.parse; 'reject' = YamlError; otherwise the expected value.
const CORPUS: { name: string; src: string; decode: 'same' | 'reject' | Json; fast?: true }[] = [
  {
    name: 'canonical doc',
    src: 'id: t1\ntags:\n  - a\n  - "1"\nsub:\n  - k: 1\n    j: |\n      x\n',
    decode: 'same',
    fast: true,
  },
  { name: 'canonical nested seqs', src: 'a:\n  - - 1\n    - - x\n  - []\n', decode: 'same', fast: true },
  { name: 'comment line', src: '# c\na: 1\n', decode: 'same' },
  { name: 'trailing comment', src: 'a: 1 # c\n', decode: 'same' },
  { name: 'plain with comment', src: 'a: b # c\n', decode: 'same' },
  { name: 'flow map', src: 'a: {b: 1, c: [x, y]}\n', decode: 'same' },
  { name: 'flow seq top', src: '[1, 2]\n', decode: 'same' },
  { name: 'top-level scalar', src: 'hello\n', decode: 'same' },
  { name: 'empty document', src: '', decode: 'same' },
  { name: 'single quotes', src: "a: 'it''s'\n", decode: 'same' },
  { name: 'folded', src: 'a: >\n  folded\n  text\n', decode: 'same' },
  { name: 'literal, indicator 1', src: 'a: |1\n  x\n', decode: 'same' },
  { name: 'literal, strip + blank', src: 'a: |-\n  x\n\n', decode: 'same' },
  { name: 'literal, clip + blanks', src: 'a: |\n  x\n\n\nb: 1\n', decode: 'same' },
  { name: 'literal, keep no blank', src: 'a: |+\n  x\nb: 1\n', decode: 'same' },
  { name: 'literal, leading blank', src: 'a: |\n\n  x\n', decode: 'same' },
  { name: 'literal, deeper indent', src: 'a: |\n     x\n     y\n', decode: 'same' },
  { name: 'literal, -2 order', src: 'a: |-2\n   x\n', decode: 'same' },
  { name: 'literal, whitespace line', src: 'a: |\n  x\n    \n  y\n', decode: 'same' },
  { name: 'anchor + alias', src: 'a: &x 1\nb: *x\n', decode: 'reject' },
  { name: 'anchor only', src: 'a: &x 1\n', decode: 'same' },
  { name: '!!str 1', src: 'a: !!str 1\n', decode: 'same' },
  { name: '!!int "3"', src: 'a: !!int "3"\n', decode: 'same' },
  { name: 'non-specific tag', src: 'a: ! 12\n', decode: 'same' },
  { name: 'deeper indentation', src: 'a:\n    b: 1\n', decode: 'same' },
  { name: 'seq at key indent', src: 'a:\n- 1\n- 2\n', decode: 'same' },
  { name: 'wide dash spacing', src: 'a:\n  -   1\n', decode: 'same' },
  { name: 'top-level seq', src: '- a: 1\n', decode: 'same' },
  { name: 'multi-line plain', src: 'a: one\n  two\n', decode: 'same' },
  { name: 'yaml-only escapes', src: 'a: "\\x41\\t\\N\\_"\n', decode: 'same' },
  { name: 'solidus escape', src: 'a: "x\\/y"\n', decode: 'same' },
  { name: 'raw tab in quotes', src: 'a: "x\ty"\n', decode: 'same' },
  { name: 'key without value', src: 'a:\nb: 1\n', decode: 'same' },
  { name: 'document markers', src: '---\na: 1\n...\n', decode: 'same' },
  { name: 'CRLF', src: 'a: 1\r\nb: x\r\n', decode: 'same' },
  { name: 'tab after colon', src: 'a:\tb\n', decode: 'same' },
  { name: 'tab indentation', src: 'a:\n\tb: 1\n', decode: 'reject' },
  { name: 'no final newline', src: 'a: 1', decode: 'same' },
  { name: 'extra blank line', src: 'a: 1\n\nb: 2\n', decode: 'same' },
  { name: 'trailing spaces', src: 'a: x  \n', decode: 'same' },
  {
    name: 'number forms',
    src: 'a: 0x1F\nb: 0o17\nc: +12\nd: 1e3\ne: .5\nf: 1_000\ng: -.5\nh: 1.0\ni: 007\n',
    decode: 'same',
  },
  {
    name: 'many digits',
    src: 'a: 123456789012345678901234567890\nb: 1.00000000000000011102230246251565404236316680908203125\n',
    decode: 'same',
  },
  { name: '1.1 booleans are strings', src: 'a: yes\nb: no\nc: on\nd: y\n', decode: 'same' },
  { name: 'null spellings', src: 'a: ~\nb: Null\nc: NULL\nd:\n', decode: 'same' },
  { name: 'bool spellings', src: 'a: True\nb: FALSE\n', decode: 'same' },
  { name: 'quoted dup key', src: 'a: 1\n"a": 2\n', decode: 'reject' },
  { name: 'merge key literal', src: '<<: {x: 1}\nb: 2\n', decode: 'same' },
  { name: 'explicit key', src: '? complex\n: v\n', decode: 'same' },
  { name: 'BOM', src: '\ufeffa: 1\n', decode: 'same' },
  { name: '__proto__ key', src: '"__proto__": {x: 1}\n', decode: 'same' },
  { name: 'plain __proto__ key', src: '__proto__:\n  polluted: true\n', decode: 'same', fast: true },
  { name: 'null key', src: 'null: 1\n', decode: { null: 1 } },
  { name: 'numeric key', src: '1.0: 1\n', decode: { '1.0': 1 } },
  { name: 'flow key', src: '[a]: 1\n', decode: 'reject' },
  { name: '.inf', src: 'a: .inf\n', decode: 'reject' },
  { name: '.nan', src: 'a: .nan\n', decode: 'reject' },
  { name: '%YAML 1.1', src: '%YAML 1.1\n---\na: yes\n', decode: 'reject' },
  { name: '%YAML 1.2', src: '%YAML 1.2\n---\na: yes\n', decode: 'same' },
  { name: 'two documents', src: 'a: 1\n---\nb: 2\n', decode: 'reject' },
  { name: 'long key', src: `${'k'.repeat(1100)}: 1\n`, decode: 'reject' },
  { name: 'reserved plain key', src: 'true: 1\n', decode: { true: 1 } },
  { name: 'quoted YAML-1.1 null key', src: '"null": 1\n', decode: { null: 1 }, fast: true },
];

t.test('differential corpus outside the canonical subset', async (t) => {
  for (const c of CORPUS) {
    const fast = fastDecodeYaml(c.src);
    let lib: unknown;
    let libError: unknown;
    try {
      lib = YAML.parse(c.src, { logLevel: 'error' });
    } catch (e) {
      libError = e;
    }
    if (fast !== undefined) {
      t.equal(libError, undefined, `${c.name}: fast path accepted only what the library parses`);
      t.ok(isDeepStrictEqual(fast, lib), `${c.name}: fast path agrees with YAML.parse`);
    }
    if (c.fast) t.not(fast, undefined, `${c.name}: canonical text takes the fast path`);
    let got: Json | undefined;
    let err: unknown;
    try {
      got = await decodeYaml(c.src);
    } catch (e) {
      err = e;
    }
    if (c.decode === 'reject') {
      t.type(err, YamlError, `${c.name}: decodeYaml rejects`);
    } else {
      t.equal(err, undefined, `${c.name}: decodeYaml accepts`);
      t.ok(isDeepStrictEqual(got, c.decode === 'same' ? lib : c.decode), `${c.name}: decodeYaml value`);
    }
  }
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
});

async function rejects(src: string, opts?: { maxBytes?: number }): Promise<YamlError> {
  try {
    await decodeYaml(src, opts);
  } catch (e) {
    if (e instanceof YamlError) return e;
    throw e;
  }
  throw new Error('expected YamlError');
}

/** CPU milliseconds this process spent since `start`: a bound on work that other processes' load cannot break. */
const cpuMs = (start: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1000;
};

t.test('safety', async (t) => {
  t.test('alias bomb fails fast', async (t) => {
    let src = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    let prev = 'a';
    for (const name of 'bcdefghijklmnop') {
      src += `${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]\n`;
      prev = name;
    }
    const start = process.cpuUsage();
    const e = await rejects(src);
    const ms = cpuMs(start);
    t.match(e.message, /alias/i);
    t.ok(ms < 500, `rejected in ${ms.toFixed(1)} ms of CPU`);
    await rejects('a: &x 1\nb: *x\n'); // even one alias is refused
  });

  t.test('byte limit is checked before parsing', async (t) => {
    const ok = encodeYaml({ a: 'x' });
    t.match(
      (await rejects(ok, { maxBytes: ok.length - 1 })).message,
      /larger than/,
      'canonical text over a custom limit',
    );
    t.same(await decodeYaml(ok, { maxBytes: ok.length }), { a: 'x' }, 'exactly at the limit passes');
    const padded = `a: ${'x'.repeat(MAX_DOCUMENT_BYTES - 4)}\n`;
    t.equal(Buffer.byteLength(padded), MAX_DOCUMENT_BYTES);
    t.same(await decodeYaml(padded), { a: 'x'.repeat(MAX_DOCUMENT_BYTES - 4) }, 'default limit is inclusive');
    t.match((await rejects(`a: ${'x'.repeat(MAX_DOCUMENT_BYTES)}\n`)).message, /larger than/);
    t.match((await rejects('a: [' + '['.repeat(MAX_DOCUMENT_BYTES))).message, /larger than/, 'garbage is not parsed');
    const euro = `a: ${'€'.repeat(400_000)}\n`; // 400k UTF-16 units, 1.2 MB of UTF-8
    t.ok(euro.length < MAX_DOCUMENT_BYTES);
    t.match((await rejects(euro)).message, /larger than/, 'limit counts UTF-8 bytes');
  });

  t.test('structural errors carry a line number', async (t) => {
    const dup = await rejects('a: 1\nb: 2\na: 3\n');
    t.equal(dup.line, 3, 'duplicate key');
    const multi = await rejects('a: 1\n---\nb: 2\n');
    t.equal(multi.line, 2, 'multiple documents');
    t.equal((await rejects('a:\n  - {x: 1, x: 2}\n')).line, 2, 'duplicate in a flow map');
    t.equal((await rejects(': v\n? \n: w\n')).line, 2, 'duplicate empty key');
    const bad = await rejects('a: 1\n  b: 2\n');
    t.type(bad.line, 'number', 'bad indentation');
  });

  t.test('tags never produce non-JSON objects', async (t) => {
    for (const src of [
      'a: !!binary aGVsbG8=\n',
      'a: !!timestamp 2001-12-14\n',
      'a: !foo x\n',
      'a: !!set {x: null}\n',
      'a: !!omap [x: 1]\n',
      'a: !!pairs [x: 1]\n',
      'a: !<tag:example.com,2000:x> y\n',
    ]) {
      await rejects(src);
    }
    t.same(await decodeYaml('a: !!str 2001-12-14\n'), { a: '2001-12-14' });
    t.same(await decodeYaml('a: 2001-12-14\n'), { a: '2001-12-14' }, 'dates stay strings');
  });

  t.test('fallback cost stays bounded', async (t) => {
    for (const src of [
      'a: ' + '['.repeat(20_000),
      '- '.repeat(2_000) + 'x\n',
      'a: ' + '{'.repeat(20_000) + '}'.repeat(20_000),
    ]) {
      const start = process.cpuUsage();
      t.match((await rejects(src)).message, /nests too deeply/);
      t.ok(cpuMs(start) < 200, 'deep nesting refused before the library sees it');
    }
    const keys = Array.from({ length: 40_000 }, (_, i) => `k${i}: v${i}`);
    const start = process.cpuUsage();
    const v = await decodeYaml(`# not canonical\n${keys.join('\n')}\n`);
    const ms = cpuMs(start);
    t.equal(Object.keys(v as Obj).length, 40_000);
    t.ok(
      ms < 5000,
      `40k keys through the fallback in ${ms.toFixed(0)} ms of CPU (the library's own uniqueKeys takes ~10 s)`,
    );
    t.equal((await rejects(`# x\n${keys.join('\n')}\nk7: again\n`)).line, 40_002, 'duplicate found with its line');
  });

  t.test('merge keys are not merged', async (t) => {
    t.same(await decodeYaml('<<: {x: 1}\nb: 2\n'), { '<<': { x: 1 }, b: 2 });
    await rejects('base: &b {x: 1}\nm:\n  <<: *b\n');
  });
});

t.test('encoder format', async (t) => {
  const doc: Obj = {
    id: 'task-1',
    title: 'Fix: the parser',
    n: 1.5,
    ok: true,
    none: null,
    'odd key': 'yes',
    null: 'null key',
    tags: ['a', '1', []],
    deps: [{ id: 'x', kind: 'blocks' }, {}],
    grid: [[1, 2], ['a']],
    note: 'line 1\nline 2\n',
    strip: 'a\nb',
    keep: 'a\n\n\n',
    lead: '  indented\nnext\n',
    crlf: 'a\r\nb',
  };
  t.equal(
    encodeYaml(doc),
    [
      'id: task-1',
      'title: "Fix: the parser"',
      '"n": 1.5', // y/n/yes/no/on/off are YAML 1.1 booleans, so quoted even as keys
      'ok: true',
      'none: null',
      '"odd key": "yes"',
      '"null": null key',
      'tags:',
      '  - a',
      '  - "1"',
      '  - []',
      'deps:',
      '  - id: x',
      '    kind: blocks',
      '  - {}',
      'grid:',
      '  - - 1',
      '    - 2',
      '  - - a',
      'note: |',
      '  line 1',
      '  line 2',
      'strip: |-',
      '  a',
      '  b',
      'keep: |+',
      '  a',
      '',
      '',
      'lead: |2',
      '    indented',
      '  next',
      'crlf: "a\\r\\nb"',
      '',
    ].join('\n'),
  );
  t.equal(encodeYaml({}), '{}\n');
  t.same(fastDecodeYaml('{}\n'), {});
  t.equal(encodeYaml({ s: '\u0085\u2028\u00a0\ud800😀' }), 's: "\\u0085\\u2028\\u00a0\\ud800😀"\n');

  const bad: unknown[] = [NaN, Infinity, undefined, new Date(0), new Map(), 1n, () => 1, Symbol('x')];
  for (const v of bad) t.throws(() => encodeYaml({ v } as unknown as Obj), YamlError, `refuses ${String(v)}`);
  t.throws(() => encodeYaml([] as unknown as Obj), YamlError, 'top level must be a mapping');
  t.throws(() => encodeYaml({ [`${'k'.repeat(1030)}`]: 1 }), YamlError, 'key too long for an implicit key');
  let deep: Json = 1;
  for (let i = 0; i < 100; i++) deep = [deep];
  t.doesNotThrow(() => encodeYaml({ deep }), 'depth 100 is fine');
  t.not(fastDecodeYaml(encodeYaml({ deep })), undefined);
  t.throws(() => encodeYaml({ deep: [deep] }), YamlError, 'depth 101 is refused');
});

t.test('yaml is only loaded lazily', async (t) => {
  const src = readFileSync(join(ROOT, 'lib', 'store', 'yaml.ts'), 'utf8');
  t.notMatch(src, /^import (?!type )[^\n]*from 'yaml'/m, 'no static value import of yaml');
});
