import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';
import { ROOT } from './helpers/env.js';

// The folders of lib/ depend on each other one way only, type imports included: output/
// renders what operations return, so it sits above ops/, and ops/ never prints.

const ALLOWED: Record<string, string[]> = {
  core: [],
  model: ['core'],
  store: ['core', 'model'],
  workspace: ['core', 'model'],
  agents: ['core', 'model', 'store', 'workspace'],
  reconcile: ['core', 'model', 'store', 'workspace', 'agents'],
  sync: ['core', 'model', 'store', 'workspace'],
  ops: ['core', 'model', 'store', 'workspace', 'agents', 'reconcile', 'sync'],
  output: ['core', 'model', 'store', 'workspace', 'agents', 'reconcile', 'sync', 'ops'],
};

/** Only core/ touches the process (pid, signals, the node binary, the environment's fallback); the rest uses the port. */
const PROCESS_ALLOWED = ['core'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every relative import: static, dynamic, re-exports and type-only ones alike. */
const imports = (src: string) =>
  [...src.matchAll(/^\s*(?:import|export)\s+(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)]
    .map((m) => m[1] ?? m[2]!)
    .filter((s) => s.startsWith('.'));

/** Source text without string literals and comments, so only code is searched. */
const codeOnly = (src: string) =>
  src
    .replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, "''")
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');

t.test('lib folders depend one way only', async (t) => {
  const lib = join(ROOT, 'lib');
  const layers = readdirSync(lib).filter((d) => statSync(join(lib, d)).isDirectory());
  t.same(layers.sort(), Object.keys(ALLOWED).sort(), 'every folder has a declared layer');
  let checked = 0;
  for (const file of files(lib)) {
    const from = relative(lib, file).split('/')[0]!;
    for (const spec of imports(readFileSync(file, 'utf8'))) {
      const target = relative(lib, resolve(dirname(file), spec));
      if (target.startsWith('..')) {
        t.fail(`${relative(ROOT, file)} imports ${spec} outside lib/`);
        continue;
      }
      const to = target.split('/')[0]!;
      checked++;
      if (to !== from && !ALLOWED[from]!.includes(to))
        t.fail(`${relative(ROOT, file)} (${from}) must not import ${spec} (${to})`);
    }
  }
  t.ok(checked > 50, `checked ${checked} imports`);
});

t.test('bin holds entry points only and every command file stays small', async (t) => {
  for (const file of files(join(ROOT, 'bin', 'commands'))) {
    const lines = readFileSync(file, 'utf8').split('\n').length;
    t.ok(lines <= 60, `${relative(ROOT, file)} is a small command file (${lines} lines)`);
  }
  for (const file of [...files(join(ROOT, 'lib')), ...files(join(ROOT, 'bin'))]) {
    const lines = readFileSync(file, 'utf8').split('\n').length;
    t.ok(lines <= 400, `${relative(ROOT, file)} reads in one sitting (${lines} lines)`);
  }
});

t.test('only core/ touches process.*: everything else talks through the port', async (t) => {
  let checked = 0;
  for (const file of files(join(ROOT, 'lib'))) {
    const layer = relative(join(ROOT, 'lib'), file).split('/')[0]!;
    if (PROCESS_ALLOWED.includes(layer)) continue;
    checked++;
    const uses = [...codeOnly(readFileSync(file, 'utf8')).matchAll(/\bprocess\.(\w+)/g)].map((m) => m[0]);
    t.same(uses, [], `${relative(ROOT, file)} uses no process.*`);
  }
  t.ok(checked > 50, `checked ${checked} files`);
});

t.test('the process check sees code and not text', async (t) => {
  t.same(
    [...codeOnly("const a = 'process.exit(1)'; // process.env\nprocess.kill(1);").matchAll(/\bprocess\.(\w+)/g)].map(
      (m) => m[0],
    ),
    ['process.kill'],
  );
});
