import yargs from 'yargs';
import * as init from './commands/init.js';
import * as create from './commands/create.js';
import * as list from './commands/list.js';
import * as show from './commands/show.js';
import * as log from './commands/log.js';
import * as comment from './commands/comment.js';
import * as close from './commands/close.js';
import * as reject from './commands/reject.js';
import * as reopen from './commands/reopen.js';
import * as doctor from './commands/doctor.js';
import * as demo from './commands/demo.js';
import * as start from './commands/start.js';
import * as unblock from './commands/unblock.js';
import * as answer from './commands/answer.js';
import * as resume from './commands/resume.js';
import * as ask from './commands/ask.js';
import * as stop from './commands/stop.js';
import * as wait from './commands/wait.js';
import * as pair from './commands/pair.js';
import * as config from './commands/config.js';
import * as watch from './commands/watch.js';
import * as accept from './commands/accept.js';
import * as diff from './commands/diff.js';
import * as edit from './commands/edit.js';
import * as inbox from './commands/inbox.js';
import * as pull from './commands/pull.js';
import * as push from './commands/push.js';
import * as sync from './commands/sync.js';
import * as supervise from './commands/supervise.js';
import * as demoAgent from './commands/demo-agent.js';
import * as benchSeed from './commands/bench-seed.js';
import { exitCode, outputOf } from './run.js';
import { reportError, guardPipes, outputFailure } from '../lib/output/emit.js';
import { usageError } from '../lib/core/errors.js';

// The CLI entry: yargs parses, each command module calls one lifecycle operation.
// bin/lazy.cjs loads the bundle of this file and calls main().

declare const LAZY_VERSION: string;

const COMMANDS = [
  init,
  create,
  list,
  show,
  log,
  diff,
  inbox,
  comment,
  edit,
  start,
  unblock,
  answer,
  resume,
  ask,
  stop,
  wait,
  pair,
  watch,
  accept,
  close,
  reject,
  reopen,
  pull,
  push,
  sync,
  config,
  doctor,
  demo,
  supervise,
  demoAgent,
  benchSeed,
];

export async function main(argv: string[]): Promise<number> {
  guardPipes();
  const wantsJson = argv.includes('--json');
  const parser = yargs(argv)
    .scriptName('lazy')
    .usage('$0 <command> [options]\n\nRun AI coding agents on tasks whose whole state lives in git.')
    .option('json', { type: 'boolean', describe: 'machine-readable output on stdout' })
    .option('C', { type: 'string', describe: 'run as if lazy was started in this directory' })
    .command(COMMANDS as never)
    .demandCommand(1, 'name a command (lazy --help lists them)')
    .strict()
    .recommendCommands()
    .help()
    .version(typeof LAZY_VERSION === 'string' ? LAZY_VERSION : 'dev')
    .wrap(null)
    .exitProcess(false)
    .fail((msg, err) => {
      throw err ?? usageError(msg, { hint: 'lazy --help lists the commands; lazy <command> --help their options' });
    });
  try {
    await parser.parseAsync();
  } catch (e) {
    return reportError(outputOf({ json: wantsJson }), e);
  }
  const failure = await outputFailure();
  if (failure) process.stderr.write(`lazy: output was not written: ${failure}\n`);
  return failure && exitCode === 0 ? 1 : exitCode;
}
