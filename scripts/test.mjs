// npm test's last step: the test files, bundled by esbuild into build/test/ and run as plain JavaScript,
// each in a node process of its own, JOBS at a time. Each file is a tap test (its output is TAP); this runner
// stands in for tap's own only because that one loads three module hooks into every file (0.7–1.0 s of CPU a
// file, measured: see CONTRIBUTING.md, Testing). The output keeps tap's shape: each file as a subtest,
// then `# { total, pass, fail }` and the slowest files. --coverage runs the TypeScript sources through tsx
// under c8 instead (slower; the line numbers are lib/'s own).
//
//   node scripts/test.mjs [--coverage] [--checks] [file.test.ts…]   (no files: every test/**/*.test.ts)
//   JOBS (default 4), TEST_TIMEOUT_S (default 300): processes at once, and one file's limit.
// --checks (npm test) runs the type-checks and the format check in the same pool, first: each is one
// single-threaded process of about 20 s of CPU, which run one after another would leave a core idle.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const coverage = args.includes('--coverage');
const checks = args.includes('--checks');
const named = args.filter((a) => !a.startsWith('--')).map((a) => resolve(a));
// A run of named files bundles into a folder of its own (removed after), so it never pulls the bundles out from
// under a whole-suite run beside it; the whole suite keeps build/test/.
const out = join(root, 'build', named.length ? `test-${process.pid}` : 'test');
export const jobs = Number(process.env.JOBS) || 4;
const timeoutMs = (Number(process.env.TEST_TIMEOUT_S) || 300) * 1000;

export const testFiles = (dir) =>
  readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? testFiles(p) : p.endsWith('.test.ts') ? [p] : [];
    });

/** Every test file in one esbuild run: shared code (lib/, the helpers) in chunks, packages left to node_modules. */
export async function bundle(entries) {
  rmSync(out, { recursive: true, force: true });
  await build({
    entryPoints: entries,
    outdir: out,
    outbase: join(root, 'test'),
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

/** A file's own counts, from the summary comment tap ends its output with. */
export function counts(text) {
  const m = /^# \{ (total: \d+[^}]*)\}$/m.exec(text);
  if (!m) return null;
  return Object.fromEntries(
    m[1]
      .split(', ')
      .map((kv) => kv.split(': '))
      .map(([k, v]) => [k, Number(v)]),
  );
}

/** Runs one test file: a bundle as plain JavaScript, or (for coverage) a TypeScript source through tsx. */
export function runFile(file, env) {
  return runNode(file.endsWith('.ts') ? ['--import', 'tsx', file] : ['--enable-source-maps', file], env);
}

/** npm test's checks besides the tests, each one node process: [name, arguments]. */
const CHECKS = [
  ['typecheck', [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']],
  ['typecheck lib/ui/page', [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'lib/ui/page/tsconfig.json']],
  ['format check', [join(root, 'node_modules/prettier/bin/prettier.cjs'), '--check', '--log-level', 'warn', '.']],
];

function runNode(args, env) {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  child.stdout.on('data', (d) => (text += d));
  child.stderr.on('data', (d) => (text += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, timeoutMs);
  return new Promise((res) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      res({ text, code, signal, timedOut, ms: performance.now() - started });
    }),
  );
}

/** Where a test file's bundle is. */
export const bundled = (file) => join(out, relative(join(root, 'test'), file)).replace(/\.ts$/, '.mjs');

/** The environment every test file runs in. */
export function testEnv() {
  const env = { ...process.env, TAP_TIMEOUT: '0' };
  // Offline tests need no extra CA certificates; node reads the whole file at every start (about 40 ms).
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** A finished file's counts, and whether it failed: a failing check, a bad exit, a timeout or no summary at all. */
export function verdict(r) {
  const c = counts(r.text);
  return { c, failed: !c || r.code !== 0 || r.timedOut || (c.fail ?? 0) > 0 };
}

/** Runs `each` over the items, `jobs` at a time, in order of the list. */
export async function pool(items, each) {
  const queue = [...items];
  const worker = async () => {
    for (let x = queue.shift(); x !== undefined; x = queue.shift()) await each(x);
  };
  await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, worker));
}

export const indent = (text) =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => (l ? `    ${l}` : ''))
    .join('\n');

async function main() {
  const all = testFiles(join(root, 'test'));
  const chosen = named.length ? all.filter((f) => named.includes(f)) : all;
  if (named.length && chosen.length !== named.length) {
    console.error(`no such test file: ${named.filter((f) => !all.includes(f)).join(', ')}`);
    process.exit(2);
  }
  const t0 = performance.now();
  // Coverage runs the sources through tsx: remapped through esbuild's bundles, V8's ranges lose lib/'s lines.
  if (!coverage) await bundle(chosen);
  if (named.length) process.once('exit', () => rmSync(out, { recursive: true, force: true }));
  const env = testEnv();
  const v8dir = join(root, '.tap', 'v8');
  if (coverage) {
    rmSync(v8dir, { recursive: true, force: true });
    mkdirSync(v8dir, { recursive: true });
    env.NODE_V8_COVERAGE = v8dir;
  }
  const total = { total: 0, pass: 0, fail: 0, skip: 0, todo: 0 };
  const times = [];
  let n = 0;
  const items = [...(checks ? CHECKS : []), ...chosen];
  await pool(items, async (f) => {
    if (Array.isArray(f)) return void process.stdout.write(checkReport(++n, f[0], await runNode(f[1], env), times));
    const name = relative(root, f);
    const r = await runFile(coverage ? f : bundled(f), { ...env, TEST_FILE: name });
    const { c, failed } = verdict(r);
    const why = r.timedOut
      ? `\n# timed out after ${timeoutMs / 1000} s`
      : !c
        ? `\n# ended without a summary (exit ${r.code ?? r.signal})`
        : '';
    if (c) for (const k of Object.keys(total)) total[k] += c[k] ?? 0;
    if (failed && !(c?.fail > 0)) total.fail += 1;
    times.push([r.ms, name]);
    const line = `${failed ? 'not ok' : 'ok'} ${++n} - ${name} # time=${r.ms.toFixed(3)}ms`;
    process.stdout.write(`# Subtest: ${name}\n${indent(r.text + why)}\n${line}\n\n`);
  });
  total.fail += failedChecks;
  const fields = Object.entries(total).filter(([k, v]) => v > 0 || k === 'total' || k === 'pass');
  console.log(`# { ${fields.map(([k, v]) => `${k}: ${v}`).join(', ')} }`);
  console.log('# the slowest test files:');
  for (const [ms, name] of times.sort((a, b) => b[0] - a[0]).slice(0, 10))
    console.log(`#   ${(ms / 1000).toFixed(1).padStart(6)} s  ${name}`);
  console.log(`# time=${(performance.now() - t0).toFixed(0)}ms`);
  if (coverage) await report(v8dir);
  process.exitCode = total.fail > 0 ? 1 : 0;
}

let failedChecks = 0;

/** A check's entry in the report: its output only when it failed (the checks print nothing when all is well). */
function checkReport(n, name, r, times) {
  times.push([r.ms, name]);
  const failed = r.code !== 0 || r.timedOut;
  if (failed) failedChecks += 1;
  const why = r.timedOut ? `\n# timed out after ${timeoutMs / 1000} s` : failed ? `\n# exit ${r.code ?? r.signal}` : '';
  const line = `${failed ? 'not ok' : 'ok'} ${n} - ${name} # time=${r.ms.toFixed(3)}ms`;
  return `# Subtest: ${name}\n${indent(r.text + why)}\n${line}\n\n`;
}

/** lib/'s coverage, every file of it counted (one no test loads reads as uncovered). */
function report(dir) {
  return new Promise((res) =>
    spawn(
      'npx',
      ['c8', 'report', `--temp-directory=${dir}`, '--all', '--src=lib', '--include=lib/**', '--reporter=text-summary'],
      { cwd: root, stdio: 'inherit' },
    ).on('close', res),
  );
}

// Run when called, not when scripts/soak.mjs borrows the pieces.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
