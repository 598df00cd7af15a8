import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { currentCall } from '../call.js';
import { run, type GlobalArgs } from '../run.js';

export const { command, describe, builder } = commandOf(C.run);

/**
 * Text: the command's output as it runs, a note on stderr, and the command's own exit status (128+n for a signal).
 * --json: stdout is the document, so the command's output goes to stderr, and the exit is 0 once the run is recorded:
 * the command's status is the document's exit_code, never confused with lazy's own exit codes.
 */
export const handler = (a: GlobalArgs & CliArgs<typeof C.run>) => {
  const call = currentCall();
  const io = call.io;
  // `lazy run <id> -- cmd args…`: yargs keeps the words after -- apart; `lazy run <id> cmd` works too.
  const argv = [...(a.command ?? []).map(String), ...(call.afterDashes ?? [])];
  const json = !!a.json;
  let status = 0;
  return run(
    a,
    async (app) => {
      const { runCommand, shellStatus } = await import('../../lib/ops/run.js');
      const stream = { out: json ? io.err : io.out, err: io.err, outOpen: io.outOpen };
      const r = await runCommand(app, String(a.id), argv, { stream, stdin: 'inherit' });
      status = shellStatus(r);
      return r;
    },
    (r) => {
      const how = r.exit_code !== null ? `exit ${r.exit_code}` : `killed by ${r.signal}`;
      io.err(
        `lazy: ${r.task.id}: ${how} in ${(r.duration_ms / 1000).toFixed(1)} s, recorded (turn #${r.task.turns.length})\n`,
      );
      return '';
    },
    { exit: () => (json ? 0 : status) },
  );
};
