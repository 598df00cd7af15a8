import type { Argv } from 'yargs';
import { setExitCode } from '../run.js';

// Hidden: the scripted agent `lazy demo` configures; a command agent like any other.
export const command = '__demo-agent <prompt>';
export const describe = false;
export const builder = (y: Argv) => y.positional('prompt', { type: 'string', describe: "the demo agent's prompt" });

export const handler = async (a: { prompt: string }) => {
  const { demoAgent } = await import('../../lib/ops/demo/agent.js');
  setExitCode(demoAgent(String(a.prompt)));
};
