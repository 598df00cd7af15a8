import * as tasks from './tasks.js';
import * as turns from './turns.js';
import * as review from './review.js';
import type { CommandContract } from './types.js';

// Every command's contract by its name (one entry point for bin/ and lib/mcp/).

export * from './types.js';

export const CONTRACTS = { ...tasks, ...turns, ...review } satisfies Record<string, CommandContract>;
export type ContractName = keyof typeof CONTRACTS;
