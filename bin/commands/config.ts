import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, runBare, type GlobalArgs } from '../run.js';
import { bareValue, renderConfig } from '../../lib/output/config.js';

export const { command, describe, builder } = commandOf(C.config);

type Args = GlobalArgs & CliArgs<typeof C.config>;

type Result = Awaited<ReturnType<typeof import('../../lib/ops/config.js').configGet>>;
const isGet = (a: Args, v: Result | Result[]): v is Result => a.action === 'get' && !Array.isArray(v);

const userWrite = (a: Args) =>
  a.user && a.key && (a.action === 'unset' || (a.action === 'set' && a.value !== undefined));

export const handler = (a: Args) =>
  userWrite(a)
    ? runBare(a, async () => (await import('../../lib/ops/config.js')).configSetUser(a.key!, a.value), renderConfig)
    : run(
        a,
        async (app) => (await import('../../lib/ops/config.js')).configCommand(app, a),
        // get prints the bare value, and nothing when it is unset (exit 1), as git config does.
        (v) => (isGet(a, v) ? bareValue(v.value) : renderConfig(v)),
        { exit: (v) => (isGet(a, v) && v.value === null ? 1 : 0) },
      );
