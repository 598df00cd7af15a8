import { createRequire } from 'node:module';

// node:crypto, loaded by its first use: random names and hashes are needed by writes, and loading it cost every
// command about 3 ms of its start (docs/benchmarks.md), read-only ones included.

let loaded: typeof import('node:crypto') | undefined;

export const nodeCrypto = (): typeof import('node:crypto') =>
  (loaded ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto'));
