import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { setExitCode } from '../run.js';

// Hidden: the scripted agent `lazy demo` configures; a command agent like any other.
export const { command, describe, builder } = commandOf(C.demoAgent);

export const handler = async (a: CliArgs<typeof C.demoAgent>) => {
  const { demoAgent } = await import('../../lib/ops/demo/agent.js');
  setExitCode(demoAgent(String(a.prompt)));
};
