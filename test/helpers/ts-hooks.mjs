import { readFile } from 'node:fs/promises';
import { transform } from 'esbuild';

// Module hooks that run the TypeScript sources under test: esbuild strips the types of one
// file in about a millisecond, where tap's ts-node plugin spent ~2 s of CPU per test file
// transpiling lib/ again. Types are checked by `tsc` (npm run typecheck), not here.

/** Sources import each other as `./x.js` (NodeNext); the file on disk is `./x.ts`. */
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (e) {
    if (specifier.endsWith('.js') && context.parentURL?.endsWith('.ts'))
      return next(`${specifier.slice(0, -3)}.ts`, context);
    throw e;
  }
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const path = new URL(url).pathname;
  const { code } = await transform(await readFile(path, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    sourcefile: path,
  });
  return { format: 'module', source: code, shortCircuit: true };
}
