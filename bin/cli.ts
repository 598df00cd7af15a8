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
import * as queue from './commands/queue.js';
import * as unqueue from './commands/unqueue.js';
import * as pause from './commands/pause.js';
import * as unpause from './commands/unpause.js';
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
import * as submit from './commands/submit.js';
import * as diff from './commands/diff.js';
import * as edit from './commands/edit.js';
import * as inbox from './commands/inbox.js';
import * as pull from './commands/pull.js';
import * as push from './commands/push.js';
import * as sync from './commands/sync.js';
import * as work from './commands/work.js';
import * as mcp from './commands/mcp.js';
import * as supervise from './commands/supervise.js';
import * as demoAgent from './commands/demo-agent.js';
import * as benchSeed from './commands/bench-seed.js';
import { reportError } from '../lib/output/emit.js';
import { guardPipes, outputFailure } from './pipes.js';
import { inCall, type Call } from './call.js';
import { processCall } from './io.js';
import { usageError } from '../lib/core/errors.js';

// The CLI entry: yargs parses, each command module calls one lifecycle operation.
// bin/lazy.cjs loads the bundle of this file and calls main().

declare const LAZY_VERSION: string;

/** The real port, for entry points that adjust it before calling main() (test/fixtures/slow-accept.cjs). */
export { processCall };

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
  queue,
  unqueue,
  pause,
  unpause,
  unblock,
  answer,
  resume,
  ask,
  stop,
  wait,
  pair,
  watch,
  accept,
  submit,
  close,
  reject,
  reopen,
  pull,
  push,
  sync,
  work,
  config,
  doctor,
  mcp,
  demo,
  supervise,
  demoAgent,
  benchSeed,
];

/** Runs one command line; `call` is the port it talks through (this process's, unless given). */
export async function main(argv: string[], call?: Call): Promise<number> {
  const wantsJson = argv.includes('--json') || argv.some((s) => s === '--fields' || s.startsWith('--fields='));
  if (!call) guardPipes();
  const c = call ?? processCall(wantsJson);
  const code = await inCall(c, () => parse(argv, c, wantsJson));
  if (call) return code;
  const failure = await outputFailure();
  if (failure) process.stderr.write(`lazy: output was not written: ${failure}\n`);
  return failure && code === 0 ? 1 : code;
}

async function parse(argv: string[], call: Call, wantsJson: boolean): Promise<number> {
  const parser = yargs()
    .scriptName('lazy')
    .usage('$0 <command> [options]\n\nRun AI coding agents on tasks whose whole state lives in git.')
    .option('json', { type: 'boolean', describe: 'machine-readable output on stdout' })
    .option('C', { type: 'string', describe: 'run as if lazy was started in this directory' })
    .option('fields', {
      type: 'string',
      describe: 'print only these fields of the JSON output (a,b.c; implies --json)',
    })
    .middleware((a) => void (a.fields !== undefined && (a.json = true)), true)
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
    // With a callback yargs hands help and version text back instead of printing it.
    let printed = '';
    await parser.parseAsync(argv, {}, (_e, _a, output) => {
      printed = output;
    });
    if (printed) call.io.out(printed.endsWith('\n') ? printed : `${printed}\n`);
  } catch (e) {
    return reportError(call.io, wantsJson, e);
  }
  return call.exitCode;
}
