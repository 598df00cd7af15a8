import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as errors from '../../lib/core/errors.js';
import { ERROR_EXIT, EXIT, LazyError, type ErrorCode } from '../../lib/core/errors.js';
import { ROOT } from '../helpers/env.js';
import { manual, wholeManual } from '../helpers/manual.js';

// The code→exit table is the contract; the "Exit codes" table of docs/commands.md is law. These tests
// read it and every mention in README.md and docs/, so a change to either side that breaks the other fails here.

const root = ROOT;
const exitTable = manual('docs/commands.md');
const docs = wholeManual();
const codes = Object.keys(ERROR_EXIT) as ErrorCode[];
const isCode = (w: string): w is ErrorCode => Object.hasOwn(ERROR_EXIT, w);

/** docs/commands.md's "## Exit codes" table: exit → meaning. */
function documentedExits(): Map<number, string> {
  const section = exitTable.split('\n## Exit codes\n')[1]!.split('\n## ')[0]!;
  const rows = [...section.matchAll(/^\| (\d) \| (.+) \|$/gm)];
  return new Map(rows.map((m) => [Number(m[1]), m[2]!]));
}

/** Every place the docs tie an error code to an exit: "exit 4, `code`", "exit 2 (`code`)", and the table's rows. */
function documentedPins(): [ErrorCode, number, string][] {
  const pins: [ErrorCode, number, string][] = [];
  for (const m of docs.matchAll(/exit (\d)(?:,| \() ?`([a-z_]+)`/g))
    if (isCode(m[2]!)) pins.push([m[2], Number(m[1]), m[0]]);
  for (const [exit, meaning] of documentedExits())
    for (const m of meaning.matchAll(/`([a-z_]+)`/g)) if (isCode(m[1]!)) pins.push([m[1], exit, `row ${exit}`]);
  return pins;
}

t.test('the exit codes are exactly the documented table', async (t) => {
  const table = documentedExits();
  t.same([...table.keys()], [0, 1, 2, 3, 4, 5, 6, 7], 'docs/commands.md lists exits 0-7');
  t.same(
    Object.values(EXIT).sort((a, b) => a - b),
    [...table.keys()],
    'EXIT names every documented exit, no other',
  );
  for (const code of codes) {
    const exit = ERROR_EXIT[code];
    t.ok(table.has(exit) && exit !== (EXIT.ok as number), `${code} exits ${exit}, a documented failure exit`);
  }
});

t.test('every code the docs tie to an exit has that exit in the table', async (t) => {
  const pins = documentedPins();
  const named = new Set(pins.map(([c]) => c));
  for (const c of ['action_not_allowed', 'unreviewed_head', 'usage', 'task_full'])
    t.ok(named.has(c as ErrorCode), `the docs pin ${c}`);
  for (const [code, exit, where] of pins) t.equal(ERROR_EXIT[code], exit, `${code} → ${exit} (docs: "${where}")`);
});

t.test('every code has one factory, which raises it with its table exit', async (t) => {
  type Tagged = ((m: string, d: object) => LazyError) & { code: ErrorCode };
  const factories = Object.entries(errors as Record<string, unknown>).filter(
    (e): e is [string, Tagged] => typeof e[1] === 'function' && typeof (e[1] as { code?: unknown }).code === 'string',
  );
  const byCode = new Map<ErrorCode, string[]>();
  for (const [name, f] of factories) byCode.set(f.code, [...(byCode.get(f.code) ?? []), name]);
  for (const code of codes) t.equal(byCode.get(code)?.length, 1, `${code} has one factory (${byCode.get(code)})`);
  t.same([...byCode.keys()].sort(), [...codes].sort(), 'no factory raises a code outside the table');

  const special: Record<string, () => LazyError> = {
    ambiguous: () => errors.ambiguous('abcd', ['abcd1', 'abcd2']),
    notAllowed: () => errors.notAllowed('accept', 'working', ['stop']),
  };
  for (const [name, f] of factories) {
    const e = special[name]?.() ?? f('m', { k: 1 });
    t.ok(e instanceof LazyError, `${name} makes a LazyError`);
    t.equal(e.code, f.code, `${name} raises ${f.code}`);
    t.equal(e.exitCode, ERROR_EXIT[f.code], `${name} exits ${ERROR_EXIT[f.code]}`);
  }
  t.equal(errors.notAllowed('accept', 'working', ['stop']).details.available_actions?.toString(), 'stop');
  t.same(errors.ambiguous('abcd', ['x', 'y']).details, { prefix: 'abcd', candidates: ['x', 'y'] });
});

t.test('a broken invariant is exit 1 and keeps the name of what broke', async (t) => {
  const e = errors.unexpected('target does not contain the squash commit', { commit: 'c' }, 'merge_failed');
  t.equal(e.code, 'merge_failed');
  t.equal(e.exitCode, EXIT.unexpected);
  t.equal(errors.asLazyError(new Error('boom')).code, 'unexpected');
  t.equal(errors.asLazyError(new Error('boom')).exitCode, EXIT.unexpected);
  const r = errors.invalidData('bad', { ref: 'r' }).reworded('bad: using the defaults');
  t.same(
    [r.code, r.exitCode, r.message, r.details],
    ['invalid_data', EXIT.invalidData, 'bad: using the defaults', { ref: 'r' }],
  );
});

t.test('lib/ and bin/ raise errors only through the factories', async (t) => {
  const files = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
    );
  const inline = [...files('lib'), ...files('bin')].filter(
    (f) => f !== join('lib', 'core', 'errors.ts') && readFileSync(join(root, f), 'utf8').includes('new LazyError('),
  );
  t.same(inline, [], 'no inline new LazyError(code, …) outside lib/core/errors.ts');
});
