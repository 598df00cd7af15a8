import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { untrustedConfig } from '../core/errors.js';
import { env } from '../core/env.js';
import { splitCommand } from '../agents/adapters/split.js';
import { lastUrl, URL_RE } from '../model/submission.js';
import type { Config } from '../store/config/index.js';

// forge.pr_command: the command line lazy submit runs to open a pull request (`gh pr create
// --head {branch} --base {base} --title={title} --body-file {body_file}`, or a script for any forge). Split like an agent's command line and
// never run by a shell; a shared one that arrived by pull runs only once this clone
// trusts it, exactly as shared agent commands.

export interface PrRun {
  command: string[];
  exit_code: number | null;
  signal: string | null;
  /** The last http(s) URL a command that succeeded printed (stdout first, else stderr). */
  url: string | null;
  /**
   * Why the command failed (a non-zero exit, a signal, a program that would not start); null when it succeeded,
   * or when it exited non-zero saying the pull request "already exists" and printed its URL (gh's answer for a branch
   * that has one): that URL is the pull request.
   */
  error: string | null;
  /** The end of each stream, for the person running submit. */
  stdout: string;
  stderr: string;
}

/** What each stream keeps (its end): enough for a URL and the failure's last lines. */
const KEEP = 64 * 1024;
/** What the result carries of each stream. */
const SHOW = 4096;

/** The configured PR command as argv, null when none; refused (exit 2) when it is shared and untrusted here. */
export function prCommandOf(config: Config): string[] | null {
  const line = config.forge?.pr_command;
  if (!line) return null;
  if (config.untrusted_pr_command)
    throw untrustedConfig(
      `forge.pr_command comes from the shared settings (refs/lazy/config) and has not been trusted on this clone: ` +
        `${JSON.stringify(line)}; review it with lazy config list, then run lazy config trust (nothing was pushed)`,
      { key: 'forge.pr_command', hint: 'lazy config list; lazy config trust' },
    );
  return splitCommand(line);
}

export interface PrEnv {
  id: string;
  branch: string;
  base: string;
  title: string;
  body: string;
}

/** Runs the command in `cwd` with the LAZY_* environment; the body file exists only while it runs. */
export async function runPrCommand(argv: string[], cwd: string, e: PrEnv): Promise<PrRun> {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-pr-'));
  const bodyFile = join(dir, 'body.md');
  try {
    writeFileSync(bodyFile, e.body);
    const vars = { LAZY_TASK_ID: e.id, LAZY_BRANCH: e.branch, LAZY_BASE: e.base, LAZY_TITLE: e.title };
    const fill = { task_id: e.id, branch: e.branch, base: e.base, title: e.title, body_file: bodyFile };
    return await spawnBounded(withPlaceholders(argv, fill), cwd, { ...env(), ...vars, LAZY_BODY_FILE: bodyFile });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * No shell expands $LAZY_BODY_FILE in a command line, so its arguments may name the same values as
 * {task_id}, {branch}, {base}, {title} and {body_file}: each is replaced inside its one argument, never re-split.
 */
export function withPlaceholders(argv: string[], values: Record<string, string>): string[] {
  return argv.map((a) => a.replace(/\{(task_id|branch|base|title|body_file)\}/g, (m, k: string) => values[k] ?? m));
}

function spawnBounded(argv: string[], cwd: string, vars: NodeJS.ProcessEnv): Promise<PrRun> {
  return new Promise((res) => {
    const tails = { stdout: '', stderr: '' };
    const keep = (k: 'stdout' | 'stderr') => (d: string) => {
      tails[k] = (tails[k] + d).slice(-KEEP);
    };
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env: vars, stdio: ['ignore', 'pipe', 'pipe'] });
    // Decoded per stream, so a character split across two reads stays whole.
    child.stdout.setEncoding('utf8').on('data', keep('stdout'));
    child.stderr.setEncoding('utf8').on('data', keep('stderr'));
    let done = false;
    const finish = (code: number | null, signal: string | null, startError: string | null) => {
      if (done) return;
      done = true;
      const lastErr = tails.stderr.trim().split('\n').at(-1)?.trim() ?? '';
      const existing = !startError && !signal && code !== 0 ? existingPr(tails.stdout, tails.stderr) : null;
      const error = startError
        ? `could not run it: ${startError}`
        : code !== 0 && !existing
          ? `${signal ? `killed by ${signal}` : `exit ${code}`}${lastErr ? `: ${lastErr}` : ''}`
          : null;
      res({
        command: argv,
        exit_code: startError ? null : code,
        signal,
        // A failing command's URLs are help pages and the like, not a pull request.
        url: error ? null : (existing ?? lastUrl(tails.stdout) ?? lastUrl(tails.stderr)),
        error,
        stdout: tails.stdout.slice(-SHOW),
        stderr: tails.stderr.slice(-SHOW),
      });
    };
    child.on('error', (err: NodeJS.ErrnoException) =>
      finish(null, null, err.code === 'ENOENT' ? `'${argv[0]}' is not installed or not on PATH` : err.message),
    );
    child.on('close', (code, signal) => finish(code, signal ?? null, null));
  });
}

/** The URL a forge CLI prints after saying the branch's pull request "already exists" (gh: `a pull request for branch … already exists:` then the URL). */
function existingPr(stdout: string, stderr: string): string | null {
  for (const text of [stderr, stdout]) {
    const at = text.search(/already exists/i);
    if (at >= 0) {
      // The first URL after it: the pull request, not a help page printed later.
      const first = text.slice(at).match(URL_RE)?.[0];
      if (first) return lastUrl(first);
    }
  }
  return null;
}
