import { statSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, isAbsolute } from 'node:path';
import { git } from './git.js';
import { notARepository, usageError } from './errors.js';
import { env } from './env.js';

// Where the repository lives. Task refs and lazy's local state belong to the common
// git dir, so every linked worktree (including a task's own) sees the same store.
export interface Repo {
  /** Working directory commands run git in. */
  cwd: string;
  /** Top of the main working tree (or of the linked worktree lazy was run from). */
  top: string;
  /** This checkout's own git dir (differs from commonDir in a linked worktree). */
  gitDir: string;
  /** The shared git dir (`.git` of the main checkout). */
  commonDir: string;
  /** lazy's local, never-pushed state: `<commonDir>/lazy`. */
  lazyDir: string;
}

function findDotGit(start: string): { top: string; dotGit: string } | undefined {
  let dir = resolve(start);
  for (;;) {
    const candidate = join(dir, '.git');
    try {
      statSync(candidate);
      return { top: dir, dotGit: candidate };
    } catch {
      /* keep walking up */
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function fromDotGit(top: string, dotGit: string): Repo | undefined {
  let gitDir = dotGit;
  if (statSync(dotGit).isFile()) {
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
    if (!m) return undefined;
    gitDir = isAbsolute(m[1]!.trim()) ? m[1]!.trim() : resolve(top, m[1]!.trim());
  }
  let commonDir = gitDir;
  try {
    const rel = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
    commonDir = isAbsolute(rel) ? rel : resolve(gitDir, rel);
  } catch {
    /* not a linked worktree */
  }
  try {
    statSync(join(commonDir, 'HEAD'));
  } catch {
    return undefined;
  }
  return { cwd: top, top, gitDir, commonDir, lazyDir: join(commonDir, 'lazy') };
}

/** Finds the repository without spawning git in the common case. */
export async function openRepo(cwd: string): Promise<Repo> {
  assertDirectory(cwd);
  const e = env();
  if (!e.GIT_DIR && !e.GIT_COMMON_DIR && !e.GIT_WORK_TREE) {
    const found = findDotGit(cwd);
    const repo = found && fromDotGit(found.top, found.dotGit);
    if (repo) return repo;
  }
  const r = await git(['rev-parse', '--show-toplevel', '--git-common-dir', '--git-dir'], { cwd, allowFail: true });
  if (r.code !== 0) {
    throw notARepository(`not a git repository (or any of its parents): ${cwd}`, {
      cwd,
      hint: 'run lazy inside a git repository (git init makes one), or name one with -C <dir>',
    });
  }
  const [top, common, own] = r.stdout.trim().split('\n');
  const commonDir = resolve(cwd, common!);
  return { cwd, top: top!, gitDir: resolve(cwd, own!), commonDir, lazyDir: join(commonDir, 'lazy') };
}

/** -C (or the cwd) must be a directory: otherwise a parent's repository, or git's spawn error, would answer instead. */
function assertDirectory(cwd: string): void {
  let st;
  try {
    st = statSync(cwd);
  } catch {
    throw usageError(`no such directory: ${cwd}`, { cwd });
  }
  if (!st.isDirectory()) throw usageError(`not a directory: ${cwd}`, { cwd });
}
