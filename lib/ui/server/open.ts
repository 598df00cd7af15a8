import { spawn } from 'node:child_process';
import type { Io } from '../../core/io.js';

// --open: the person's browser, as they configured it ($BROWSER, a list tried in order as xdg-utils does), else the
// desktop's opener. Never waited on: the browser outlives nothing of ours, and a failure only costs a warning.

function openers(io: Io): string[][] {
  const configured = (io.env.BROWSER ?? '')
    .split(':')
    .map((b) => b.trim())
    .filter(Boolean)
    .map((b) => ['sh', '-c', b.includes('%s') ? b.replace(/%s/g, '"$1"') : `${b} "$1"`, 'browser']);
  return [...configured, ['xdg-open'], ['open']];
}

export function openBrowser(io: Io, url: string): void {
  const tryFrom = (i: number, failures: string[]) => {
    const argv = openers(io)[i];
    if (!argv) return io.warn(`could not open a browser (${failures.join('; ')}): open ${url} yourself`);
    const child = spawn(argv[0]!, [...argv.slice(1), url], { stdio: 'ignore', detached: true, env: { ...io.env } });
    child.once('error', (e) => tryFrom(i + 1, [...failures, `${argv[0]}: ${e.message}`]));
    child.once('spawn', () => child.unref());
  };
  tryFrom(0, []);
}
