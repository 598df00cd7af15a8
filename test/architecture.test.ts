import t, { type Test } from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';
import { ROOT } from './helpers/env.js';

// The folders of lib/ depend on each other one way only, type imports included; a subfolder
// (agents/adapters/) belongs to its top-level folder's layer. output/ renders what operations
// return, so it sits above ops/, and ops/ never prints. mcp/ serves operations as MCP tools; ui/ serves them (through
// mcp/'s builder tools, so an action means the same on both) as a local web page: the top layer.

const ALLOWED: Record<string, string[]> = {
  core: [],
  model: ['core'],
  store: ['core', 'model'],
  workspace: ['core', 'model'],
  agents: ['core', 'model', 'store', 'workspace'],
  reconcile: ['core', 'model', 'store', 'workspace', 'agents'],
  sync: ['core', 'model', 'store', 'workspace'],
  fleet: ['core', 'model', 'store', 'workspace', 'agents', 'reconcile', 'sync'],
  ops: ['core', 'model', 'store', 'workspace', 'agents', 'reconcile', 'sync', 'fleet'],
  output: ['core', 'model', 'store', 'workspace', 'agents', 'reconcile', 'sync', 'fleet', 'ops'],
  mcp: ['core', 'model', 'store', 'workspace', 'agents', 'reconcile', 'sync', 'fleet', 'ops', 'output'],
  ui: ['core', 'model', 'store', 'workspace', 'agents', 'reconcile', 'sync', 'fleet', 'ops', 'output', 'mcp'],
};

/** Only core/ touches the process (pid, signals, the node binary, the environment's fallback); the rest uses the port. */
const PROCESS_ALLOWED = ['core'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Source text without string literals and comments, so only code is searched. */
const codeOnly = (src: string) =>
  src
    .replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, "''")
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');

/** Every relative import, runtime or type-only (import, export ... from, import(), typeof import()). */
const allImports = (src: string) =>
  [
    ...src.matchAll(
      /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm,
    ),
  ]
    .map((m) => m[1] ?? m[2]!)
    .filter((s) => s.startsWith('.'));

/** A folder's import graph (lib/, bin/): file -> the folder's files it imports (a .js specifier names its .ts source). */
function importGraph(lib: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(lib)) {
    const deps = allImports(readFileSync(file, 'utf8')).map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
    graph.set(
      file,
      [...new Set(deps)].filter((d) => d.startsWith(lib + '/')),
    );
  }
  return graph;
}

/** One file path per cycle: a depth-first walk reports each back edge as the loop it closes. */
function cycles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found = new Map<string, string[]>();
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const d of graph.get(f) ?? []) {
      if (state.get(d) === 'open') {
        const loop = stack.slice(stack.indexOf(d));
        found.set([...loop].sort().join(' '), [...loop, d]);
      } else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f);
  return [...found.values()];
}

/** Fails each import cycle among a folder's files (read at least `least` of them). */
function noCycles(t: Test, dir: string, least: number) {
  const graph = importGraph(dir);
  t.ok(graph.size > least, `read ${graph.size} files`);
  for (const loop of cycles(graph)) t.fail(`import cycle: ${loop.map((f) => relative(ROOT, f)).join(' -> ')}`);
}

t.test('no import cycles between lib files, type-only imports included', async (t) => {
  const lib = join(ROOT, 'lib');
  noCycles(t, lib, 50);
  // The checker itself finds a cycle, type-only edges included.
  const a = join(lib, 'x/a.ts');
  const b = join(lib, 'x/b.ts');
  t.same(
    cycles(
      new Map([
        [a, [b]],
        [b, [a]],
      ]),
    ).length,
    1,
    'a two-file cycle is found',
  );
  t.same(
    allImports("import type { A } from './a.js';\nexport { b } from '../b.js';\ntype M = typeof import('./m.js');"),
    ['./a.js', '../b.js', './m.js'],
    'type-only imports, re-exports and import() count',
  );
});

t.test('bin/: no import cycles, command files import no other, and it imports nothing but bin/ and lib/', async (t) => {
  // lib/ never imports bin/: 'lib folders depend one way only' fails any import that leaves lib/.
  const bin = join(ROOT, 'bin');
  noCycles(t, bin, 40);
  const commands = join(bin, 'commands');
  let checked = 0;
  for (const file of files(bin)) {
    for (const spec of allImports(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), spec);
      checked++;
      if (!target.startsWith(bin + '/') && !target.startsWith(join(ROOT, 'lib') + '/'))
        t.fail(`${relative(ROOT, file)} imports ${spec} outside bin/ and lib/`);
      if (file.startsWith(commands + '/') && target.startsWith(commands + '/'))
        t.fail(`${relative(ROOT, file)} imports another command, ${spec}: share it from a module of bin/`);
    }
  }
  t.ok(checked > 100, `checked ${checked} imports`);
});

t.test('agents/adapters/ knows one agent CLI at a time and nothing of runs or the supervisor', async (t) => {
  const lib = join(ROOT, 'lib');
  const adapters = join(lib, 'agents', 'adapters');
  let checked = 0;
  for (const [file, deps] of importGraph(lib)) {
    if (!file.startsWith(adapters + '/')) continue;
    for (const d of deps) {
      checked++;
      if (d.startsWith(join(lib, 'agents') + '/') && !d.startsWith(adapters + '/'))
        t.fail(`${relative(ROOT, file)} must not import ${relative(ROOT, d)}`);
    }
  }
  t.ok(checked > 5, `checked ${checked} imports of agents/adapters/`);
});

t.test('lib folders depend one way only', async (t) => {
  const lib = join(ROOT, 'lib');
  const layers = readdirSync(lib).filter((d) => statSync(join(lib, d)).isDirectory());
  t.same(layers.sort(), Object.keys(ALLOWED).sort(), 'every folder has a declared layer');
  let checked = 0;
  for (const file of files(lib)) {
    const from = relative(lib, file).split('/')[0]!;
    for (const spec of allImports(readFileSync(file, 'utf8'))) {
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

t.test(
  "lazy ui's page is browser code: it imports only itself and parse-diff, and nothing of lib/ imports it",
  async (t) => {
    const page = join(ROOT, 'lib', 'ui', 'page');
    for (const file of files(join(ROOT, 'lib'))) {
      const src = readFileSync(file, 'utf8');
      const specs = [
        ...src.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm),
      ].map((m) => m[1]!);
      if (file.startsWith(page + '/')) {
        const outside = specs.filter((s) =>
          s.startsWith('.') ? !resolve(dirname(file), s).startsWith(page) : s !== 'parse-diff',
        );
        t.same(outside, [], `${relative(ROOT, file)} imports only the page's own files`);
      } else {
        const into = specs.filter((s) => s.startsWith('.') && resolve(dirname(file), s).startsWith(page));
        t.same(into, [], `${relative(ROOT, file)} does not import the page`);
      }
    }
  },
);

t.test('the process check sees code and not text', async (t) => {
  t.same(
    [...codeOnly("const a = 'process.exit(1)'; // process.env\nprocess.kill(1);").matchAll(/\bprocess\.(\w+)/g)].map(
      (m) => m[0],
    ),
    ['process.kill'],
  );
});

t.test('time goes through the port: no clock read or timer in lib/ outside core/clock.ts', async (t) => {
  // lazy ui's page runs in the browser: its timers (a debounce, a reconnect) are the browser's, set in one file of its
  // own, whose time is the serving command's (lib/ui/page/clock.ts reads no clock).
  const clockFiles = [join(ROOT, 'lib', 'core', 'clock.ts'), join(ROOT, 'lib', 'ui', 'page', 'clock.ts')];
  const TIME =
    /\bDate\.now\(|\bnew Date\(\s*\)|\bset(?:Timeout|Interval|Immediate)\(|\bperformance\.now\(|\bprocess\.hrtime\b|from 'node:timers/g;
  let checked = 0;
  for (const file of files(join(ROOT, 'lib'))) {
    if (clockFiles.includes(file)) continue;
    checked++;
    const uses = [...codeOnly(readFileSync(file, 'utf8')).matchAll(TIME)].map((m) => m[0]);
    t.same(uses, [], `${relative(ROOT, file)} reads no clock and sets no timer of its own`);
  }
  t.ok(checked > 50, `checked ${checked} files`);
  t.same(
    [...codeOnly("const a = 'Date.now()'; new Date(x); setTimeout(f, 1); // Date.now()").matchAll(TIME)].map(
      (m) => m[0],
    ),
    ['setTimeout('],
    'the check sees code, and a parsed date is no clock read',
  );
});
