import * as tasks from './tasks.js';
import * as turns from './turns.js';
import * as review from './review.js';
import * as repo from './repo.js';
import * as plumbing from './plumbing.js';
import type { CommandContract } from './types.js';

// Every command's contract by its name (a hidden __name's in camelCase): one entry point for bin/ and lib/mcp/.

export * from './types.js';

export const CONTRACTS = { ...tasks, ...turns, ...review, ...repo, ...plumbing } satisfies Record<
  string,
  CommandContract
>;
