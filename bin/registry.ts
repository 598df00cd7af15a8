import { colorMode } from '../lib/output/color.js';
import { GLOBALS } from './quick.js';
import { yargsOptions } from './contract.js';
import * as init from './commands/init.js';
import * as create from './commands/create.js';
import * as list from './commands/list.js';
import * as show from './commands/show.js';
import * as log from './commands/log.js';
import * as archive from './commands/archive.js';
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
import * as followUp from './commands/follow-up.js';
import * as repair from './commands/repair.js';
import * as stop from './commands/stop.js';
import * as wait from './commands/wait.js';
import * as pair from './commands/pair.js';
import * as runCmd from './commands/run.js';
import * as config from './commands/config.js';
import * as watch from './commands/watch.js';
import * as accept from './commands/accept.js';
import * as submit from './commands/submit.js';
import * as diff from './commands/diff.js';
import * as edit from './commands/edit.js';
import * as inbox from './commands/inbox.js';
import * as usage from './commands/usage.js';
import * as pull from './commands/pull.js';
import * as push from './commands/push.js';
import * as sync from './commands/sync.js';
import * as work from './commands/work.js';
import * as mcp from './commands/mcp.js';
import * as ui from './commands/ui.js';
import * as supervise from './commands/supervise.js';
import * as demoAgent from './commands/demo-agent.js';
import * as benchSeed from './commands/bench-seed.js';
import * as completion from './commands/completion.js';
import * as help from './commands/help.js';
import type { Argv } from 'yargs';
import { specOf, type CommandModule, type CommandSpec } from './spec.js';

// Every command module, in the order `lazy --help` lists them, and the options every command takes.

export const COMMANDS = [
  init,
  create,
  list,
  show,
  log,
  diff,
  inbox,
  usage,
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
  repair,
  stop,
  wait,
  pair,
  runCmd,
  watch,
  ui,
  accept,
  submit,
  close,
  reject,
  reopen,
  followUp,
  pull,
  push,
  sync,
  archive,
  work,
  config,
  doctor,
  completion,
  help,
  mcp,
  demo,
  supervise,
  demoAgent,
  benchSeed,
];

/** The specs of every command (hidden ones included), read once. */
let specs: ReturnType<typeof specOf>[] | undefined;
export const commandSpecs = () => (specs ??= (COMMANDS as readonly CommandModule[]).map(specOf));

/** The options every command takes (bin/cli.ts adds yargs' help and version, described here). */
export const globalOptions = <T>(y: Argv<T>): Argv<T> =>
  GLOBALS.reduce(
    (y, a) => y.option(a.name, a.name === 'color' ? { ...yargsOptions(a), coerce: colorMode } : yargsOptions(a)),
    y,
  );
export const HELP_DESCRIBE = 'show help (lazy help <command> for one command)';
export const VERSION_DESCRIBE = "show lazy's version";

/** The global options as a spec (completion and the man page list them). */
export function globalSpec(): CommandSpec {
  const spec = specOf({ command: 'lazy', describe: '', builder: globalOptions as (y: Argv) => unknown });
  const flag = (name: string, describe: string, aliases: string[] = []) =>
    ({ name, describe, aliases, type: 'boolean', array: false }) as const;
  spec.options.push(flag('help', HELP_DESCRIBE, ['h']), flag('version', VERSION_DESCRIBE));
  return spec;
}

/** Option names that take a value (global ones, and the command's), as yargs spells them without dashes. */
export function valuedOptions(spec: CommandSpec | undefined): Set<string> {
  const opts = [...globalSpec().options, ...(spec?.options ?? [])].filter((o) => o.type !== 'boolean');
  return new Set(opts.flatMap((o) => [o.name, ...o.aliases]));
}
