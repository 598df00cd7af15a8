import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';
import { ROOT } from './helpers/env.js';

// The folders of lib/ depend on each other one way only. Type-only imports are erased
// at build time and may cross layers (renderers name the shapes operations return).

const ALLOWED: Record<string, string[]> = {
  core: [],
  model: ['core'],
  store: ['core', 'model'],
  workspace: ['core', 'model'],
  agents: ['core', 'model', 'store', 'workspace'],
  reconcile: ['core', 'model', 'store', 'workspace', 'agents'],
  sync: ['core', 'model', 'store', 'workspace'],
  output: ['core', 'model'],
  ops: ['core', 'model', 'store', 'workspace', 'agents', 'reconcile', 'sync', 'output'],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

const runtimeImports = (src: string) =>
  [
    ...src.matchAll(
      /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm,
    ),
  ]
    .map((m) => m[1] ?? m[2]!)
    .filter((s) => s.startsWith('.'));

t.test('lib folders depend one way only', async (t) => {
  const lib = join(ROOT, 'lib');
  const layers = readdirSync(lib).filter((d) => statSync(join(lib, d)).isDirectory());
  t.same(layers.sort(), Object.keys(ALLOWED).sort(), 'every folder has a declared layer');
  let checked = 0;
  for (const file of files(lib)) {
    const from = relative(lib, file).split('/')[0]!;
    for (const spec of runtimeImports(readFileSync(file, 'utf8'))) {
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
