import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { usageError } from '../../lib/core/errors.js';
import { commandOf } from '../contract.js';
import { run, messageArg, maybeFollow, orFollowed, type GlobalArgs } from '../run.js';
import { renderRound } from '../../lib/output/rounds.js';

export const { command, describe, builder } = commandOf(C.followUp);

type Args = GlobalArgs & CliArgs<typeof C.followUp>;

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { followUpTask } = await import('../../lib/ops/round/index.js');
      if (a.command !== undefined && a.message !== undefined)
        throw usageError('give the agent a prompt (-m) or a shell command (--command), not both');
      const text = a.command === undefined ? await messageArg(a.message, 'the prompt', true) : undefined;
      // --follow on --command: its output as it runs (this process runs it; there is no turn to follow).
      let last = '\n';
      const onOutput =
        a.follow && !a.json
          ? (chunk: string) => {
              app.io.out(chunk);
              last = chunk.at(-1) ?? last;
            }
          : undefined;
      const r = await followUpTask(app, String(a.id), { text, agent: a.agent, command: a.command, onOutput });
      if (last !== '\n') app.io.out('\n');
      return maybeFollow(app, a, r);
    },
    orFollowed(renderRound),
  );
