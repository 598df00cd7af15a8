// npm test's last step: tap, with V8 coverage of the test processes, then lib/'s coverage.
// Only in-process code is measured: the spawned CLI runs a bundle whose positions do not map
// back to lib/ (test/helpers/env.ts keeps NODE_V8_COVERAGE out of the processes tests start).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, '.tap', 'v8');
rmSync(dir, { recursive: true, force: true });
const npx = (args, env = process.env) => spawnSync('npx', args, { cwd: root, stdio: 'inherit', env });
const tap = npx(['tap', ...process.argv.slice(2)], { ...process.env, NODE_V8_COVERAGE: dir });
npx(['c8', 'report', `--temp-directory=${dir}`, '--all', '--src=lib', '--include=lib/**', '--reporter=text-summary']);
process.exitCode = tap.status ?? 1;
