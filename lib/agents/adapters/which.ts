import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** Resolves a program the way execvp would, so a missing agent fails before anything starts. */
export function resolveExecutable(program: string, pathEnv = ''): string | undefined {
  const candidates = program.includes('/')
    ? [program]
    : pathEnv
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, program));
  for (const c of candidates) {
    try {
      if (!isAbsolute(c) && !program.includes('/')) continue;
      if (!statSync(c).isFile()) continue;
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      /* next */
    }
  }
  return undefined;
}
