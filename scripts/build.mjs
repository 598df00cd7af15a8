// Build: precompile every JSON Schema into standalone validators, then bundle the CLI
// into one CommonJS file that bin/lazy.cjs loads through V8's code cache.
import { readdirSync, readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const schemaDir = join(root, 'schemas');

function compileValidators() {
  const ajv = new Ajv({ code: { source: true, esm: true }, strict: true, allErrors: false });
  const exportsMap = {};
  for (const file of readdirSync(schemaDir)
    .filter((f) => f.endsWith('.schema.json'))
    .sort()) {
    const schema = JSON.parse(readFileSync(join(schemaDir, file), 'utf8'));
    ajv.addSchema(schema);
    const name = file.replace('.schema.json', '').replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (name !== 'defs') exportsMap[name] = schema.$id;
  }
  mkdirSync(join(root, 'build'), { recursive: true });
  // ajv's standalone ESM output still calls require() for its runtime helpers; turn
  // those into imports so the module loads under plain ESM (tests) and in the bundle.
  const imports = new Map();
  const code = standaloneCode(ajv, exportsMap).replace(/require\("([^"]+)"\)/g, (_, mod) => {
    if (!imports.has(mod)) imports.set(mod, `__ajv${imports.size}`);
    return imports.get(mod);
  });
  const header = [...imports].map(([mod, name]) => `import ${name} from ${JSON.stringify(mod + '.js')};`).join('\n');
  writeFileSync(join(root, 'build', 'validators.js'), `${header}\n${code.replace(/^"use strict";/, '')}`);
  return Object.keys(exportsMap);
}

// Start-up is a feature: the MCP server and its SDK are a bundle of their own (dist/mcp.cjs),
// required by `lazy mcp` only, so no other command reads or compiles them.
const BUNDLES = [
  [join(root, 'bin', 'cli.ts'), join(root, 'dist', 'cli.cjs')],
  [join(root, 'lib', 'mcp', 'server.ts'), join(root, 'dist', 'mcp.cjs')],
  // lazy ui's server: loaded by `lazy ui` only, with the page it serves beside it (dist/ui/).
  [join(root, 'lib', 'ui', 'server', 'index.ts'), join(root, 'dist', 'ui.cjs')],
];

// The page of lazy ui: browser code and its stylesheet, bundled with what it imports (parse-diff) so nothing is
// fetched at run time (no CDN: it works offline).
async function buildPage() {
  const page = join(root, 'lib', 'ui', 'page');
  await build({
    entryPoints: [join(page, 'index.ts'), join(page, 'app.css')],
    outdir: join(root, 'dist', 'ui'),
    entryNames: 'app',
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
    minify: process.env.LAZY_NO_MINIFY !== '1',
    legalComments: 'none',
    logLevel: 'warning',
  });
}

/** The transition table's signature (lib/model/table.ts tableSignature), computed once here instead of at every start. */
async function tableSignature() {
  const outfile = join(root, 'build', 'table.cjs');
  await build({
    entryPoints: [join(root, 'lib', 'model', 'table.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'warning',
  });
  return createRequire(import.meta.url)(outfile).tableSignature();
}
const TABLE_SIGNATURE = await tableSignature();

// `await import('node:x')` loads that builtin when the line runs, not at start-up: bundled as a lazy require,
// since bin/lazy.cjs's vm.Script cannot serve a real import().
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (a) =>
      a.kind === 'dynamic-import' ? { path: a.path, namespace: 'lazy-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (a) => ({
      contents: `module.exports = require(${JSON.stringify(a.path)});`,
      loader: 'js',
    }));
    // proper-lockfile's graceful-fs patches node's fs when loaded (every write paid it): its EMFILE queue is for
    // programs with thousands of open files, and the lock makes four calls. Plain fs it is.
    b.onResolve({ filter: /^graceful-fs$/ }, () => ({ path: 'fs', namespace: 'lazy-builtin' }));
  },
};

async function bundle(entry, outfile) {
  return build({
    plugins: [lazyBuiltins],
    metafile: true,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: process.env.LAZY_NO_MINIFY !== '1',
    sourcemap: 'linked',
    legalComments: 'none',
    // Bundled ESM packages read import.meta.url; give them this file's URL in CommonJS.
    define: {
      'import.meta.url': '__lazyImportMetaUrl',
      LAZY_VERSION: JSON.stringify(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version),
      LAZY_TABLE_SIGNATURE: JSON.stringify(TABLE_SIGNATURE),
    },
    banner: { js: "var __lazyImportMetaUrl=require('url').pathToFileURL(__filename).href;" },
    logLevel: 'warning',
    alias: { 'string-width': join(root, 'lib', 'output', 'string-width.ts') },
  });
}

// The man pages come from the command definitions themselves (bin/man.ts), bundled for this build only.
async function writeManPages() {
  const outfile = join(root, 'build', 'man.cjs');
  await bundle(join(root, 'bin', 'man.ts'), outfile);
  const { manPage } = createRequire(import.meta.url)(outfile);
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  const doc = readFileSync(join(root, 'docs', 'commands.md'), 'utf8');
  mkdirSync(join(root, 'dist', 'man'), { recursive: true });
  for (const page of ['lazy', 'git-lazy']) {
    writeFileSync(join(root, 'dist', 'man', `${page}.1`), manPage({ page, version, doc }));
  }
}

const names = compileValidators();
rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const [entry, outfile] of BUNDLES) {
  const { metafile } = await bundle(entry, outfile);
  // bin/lazy.cjs runs the bundle through vm.Script, which cannot serve a real import():
  // every dynamic import must have been bundled into a lazy require.
  const leftover = Object.values(metafile.outputs)
    .flatMap((o) => o.imports)
    .filter((i) => i.kind === 'dynamic-import' && i.external);
  if (leftover.length) {
    throw new Error(
      `${outfile} keeps a real dynamic import() of ${leftover.map((i) => i.path).join(', ')}; import it statically`,
    );
  }
}
await buildPage();
await writeManPages();
console.log(
  `built dist/cli.cjs, dist/mcp.cjs, dist/ui.cjs, dist/ui/ and dist/man/ (lazy.1, git-lazy.1) (validators: ${names.join(', ')})`,
);
