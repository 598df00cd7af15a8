// npm run soak: the randomised tests (every test file that takes its seed from test/helpers/seed.ts)
// over many seeds. npm test runs each on one fixed seed, so it repeats; this sweeps new ones and
// names every seed that fails, with the command that replays it.
//
//   node scripts/soak.mjs [file.test.ts…]
//   SOAK_SEEDS (default 20): seeds per file; SOAK_FROM: the first seed (default: chosen from the clock,
//   printed); JOBS and TEST_TIMEOUT_S as for npm test.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { bundle, bundled, indent, pool, root, runFile, testEnv, testFiles, verdict } from './test.mjs';

const named = process.argv.slice(2).map((a) => resolve(a));
const seeded = testFiles(join(root, 'test')).filter((f) => readFileSync(f, 'utf8').includes('/helpers/seed.js'));
const files = named.length ? seeded.filter((f) => named.includes(f)) : seeded;
if (files.length === 0) {
  console.error(`no randomised test among: ${named.join(', ') || '(none found)'}`);
  process.exit(2);
}
const count = Number(process.env.SOAK_SEEDS) || 20;
const from = process.env.SOAK_FROM ? Number(process.env.SOAK_FROM) : Date.now() % 1_000_000;
console.log(`# soak: ${files.length} files × ${count} seeds from ${from} (SOAK_FROM=${from} repeats this sweep)`);

await bundle(files);
const env = testEnv();
const runs = files.flatMap((f) => Array.from({ length: count }, (_, i) => [f, from + i]));
const failures = [];
let done = 0;
await pool(runs, async ([f, seed]) => {
  const name = relative(root, f);
  const r = await runFile(bundled(f), { ...env, TEST_FILE: name, TEST_SEED: String(seed) });
  done++;
  if (!verdict(r).failed) return void console.log(`ok ${done} - ${name} seed ${seed} # time=${r.ms.toFixed(0)}ms`);
  failures.push([name, seed]);
  console.log(`not ok ${done} - ${name} seed ${seed}${r.timedOut ? ' (timed out)' : ''}\n${indent(r.text)}`);
});
console.log(`# ${done - failures.length} passed, ${failures.length} failed`);
for (const [name, seed] of failures)
  console.log(`# failed: ${name} with seed ${seed}; replay: TEST_SEED=${seed} node scripts/test.mjs ${name}`);
process.exitCode = failures.length ? 1 : 0;
