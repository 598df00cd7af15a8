import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { runBare, type GlobalArgs } from '../run.js';
import { indent } from '../../lib/output/format.js';
import { currentCall } from '../call.js';
import { renderList, renderShow } from '../../lib/output/tasks.js';
import { textIn } from '../../lib/output/emit.js';
import type { ListedTask } from '../../lib/ops/list.js';
import { renderLog } from '../../lib/output/log.js';
import { renderAccepted } from '../../lib/output/review.js';

export const { command, describe, builder } = commandOf(C.demo);

export const handler = (a: GlobalArgs & CliArgs<typeof C.demo>) =>
  runBare(
    a,
    async () => {
      const { runDemo } = await import('../../lib/ops/demo/index.js');
      const { io } = currentCall();
      let n = 0;
      const say = a.json
        ? undefined
        : (s: { title: string; command: string; output: string }) =>
            io.out(`\n[${++n}] ${s.title}\n  $ ${s.command}\n${indent(s.output, 4)}\n`);
      const list = (rows: ListedTask[]) => textIn(renderList(rows));
      const render = { list, show: renderShow, log: renderLog, accepted: renderAccepted };
      return runDemo({ keep: a.keep, say, io, render });
    },
    (r) => `\ndemo finished${r.kept ? `; the repository is kept at ${r.repository}` : ''}`,
  );
