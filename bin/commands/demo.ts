import type { Argv } from 'yargs';
import { runBare, type GlobalArgs } from '../run.js';
import { indent } from '../../lib/output/format.js';
import { writeOut } from '../../lib/output/emit.js';

export const command = 'demo';
export const describe = 'Run the lifecycle in a throwaway repository and narrate it (offline)';
export const builder = (y: Argv) => y.option('keep', { type: 'boolean', describe: 'keep the temporary repository' });

export const handler = (a: GlobalArgs & { keep?: boolean }) =>
  runBare(
    a,
    async () => {
      const { runDemo } = await import('../../lib/ops/demo.js');
      let n = 0;
      const say = a.json
        ? undefined
        : (s: { title: string; command: string; output: string }) =>
            writeOut(`\n[${++n}] ${s.title}\n  $ ${s.command}\n${indent(s.output, 4)}\n`);
      return runDemo({ keep: a.keep, say, cliPath: process.env.LAZY_CLI ?? process.argv[1]! });
    },
    (r) => `\ndemo finished${r.kept ? `; the repository is kept at ${r.repository}` : ''}`,
  );
