import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Io } from '../../core/io.js';

// --open: the person's browser, as they configured it ($BROWSER, a list tried in order as xdg-utils does), else the
// desktop's opener. Never waited on: the browser outlives nothing of ours, and a failure only costs a warning.
// The browser is handed a file of the person's own (mode 0600) that forwards to the address, never the address
// itself: a command line is readable by every user of the machine (ps), and the address carries the token.

function openers(io: Io): string[][] {
  const configured = (io.env.BROWSER ?? '')
    .split(':')
    .map((b) => b.trim())
    .filter(Boolean)
    .map((b) => ['sh', '-c', b.includes('%s') ? b.replace(/%s/g, '"$1"') : `${b} "$1"`, 'browser']);
  return [...configured, ['xdg-open'], ['open']];
}

/** The forwarding page: the token stays in a file only its owner reads. */
function forwarder(lazyDir: string, url: string): string {
  const file = join(lazyDir, 'ui-open.html');
  const html = `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${url}"><title>lazy</title>\n`;
  writeFileSync(file, html, { mode: 0o600 });
  return pathToFileURL(file).href;
}

export function openBrowser(io: Io, lazyDir: string, url: string): void {
  const target = forwarder(lazyDir, url);
  const tryFrom = (i: number, failures: string[]) => {
    const argv = openers(io)[i];
    if (!argv) return io.warn(`could not open a browser (${failures.join('; ')}): open the address above yourself`);
    const child = spawn(argv[0]!, [...argv.slice(1), target], { stdio: 'ignore', detached: true, env: { ...io.env } });
    child.once('error', (e) => tryFrom(i + 1, [...failures, `${argv[0]}: ${e.message}`]));
    // A $BROWSER entry runs through sh, which always starts: its 127 or 126 says the program is missing or not
    // runnable, and the next opener is tried. Any other exit is the browser's own business.
    child.once('exit', (code) => {
      if (code === 127 || code === 126)
        tryFrom(i + 1, [...failures, `${argv[0] === 'sh' ? argv[2] : argv[0]}: exit ${code}`]);
    });
    child.once('spawn', () => child.unref());
  };
  tryFrom(0, []);
}
