import type { Argv } from 'yargs';
import { runBare, type GlobalArgs } from '../run.js';

export const command = 'completion <shell>';
export const describe = 'Print a shell completion script (bash: eval "$(lazy completion bash)")';
export const builder = (y: Argv) =>
  y.positional('shell', {
    choices: ['bash', 'zsh', 'fish'] as const,
    describe: 'the shell to complete in: commands, options, statuses and task ids',
  });

export const handler = (a: GlobalArgs & { shell: 'bash' | 'zsh' | 'fish' }) =>
  runBare(
    a,
    async () => {
      const { completionScript } = await import('../shells.js');
      return { shell: a.shell, script: completionScript(a.shell) };
    },
    (r) => r.script,
  );
