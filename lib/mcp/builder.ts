import { showTask } from '../ops/show.js';
import { listTasks } from '../ops/list.js';
import { startTask } from '../ops/start.js';
import { waitTask } from '../ops/wait.js';
import { askTask } from '../ops/ask.js';
import { acceptTask } from '../ops/accept/index.js';
import { inbox } from '../ops/inbox.js';
import { usage, type UsageBy } from '../ops/usage.js';
import { createTask } from '../ops/create.js';
import { commentTask } from '../ops/comment.js';
import { unblockTask } from '../ops/unblock.js';
import { answerTask } from '../ops/answer.js';
import { runCommand } from '../ops/run.js';
import { abandonTool, lifecycleTools } from './lifecycle.js';
import type { DecisionFlags } from '../ops/decisions.js';
import type { Reply } from './port.js';
import { CONTRACTS as C, ID_TEXT, type ToolArgs } from '../ops/contract/index.js';
import { str, opt, req, inputSchemaOf, toolOf, type Args, type Tool } from './schema.js';

// The builder's tools: each calls the lifecycle operation its CLI command calls, with the same
// options: both are generated from the command's contract (lib/ops/contract/), so a tool's arguments are
// the command's and its reply is what `lazy <command> --json` prints.

export const ID = str(ID_TEXT);

export const decisions = (a: Args): DecisionFlags => ({
  approve: opt<string[]>(a, 'approve_files'),
  revert: opt<string[]>(a, 'revert_files'),
  approveAll: opt<boolean>(a, 'approve_all'),
  revertAll: opt<boolean>(a, 'revert_all'),
});

/** lazy_create's arguments but its parent (an agent's subtask has its task as parent). */
export const CREATE_PROPS = Object.fromEntries(
  Object.entries(inputSchemaOf(C.create).properties).filter(([k]) => k !== 'parent'),
);

export const createInput = (a: Args, parent: string | undefined) => ({
  goal: [req<string>(a, 'goal')],
  prompt: opt<string>(a, 'prompt'),
  accept: opt<string[]>(a, 'accept'),
  parent,
  tags: opt<string[]>(a, 'tags'),
  agent: opt<string>(a, 'agent'),
  model: opt<string>(a, 'model'),
});

/** list's and inbox's filters (--tag…, --search, --sort, --limit). */
const filterInput = ({ tag, search, sort, limit }: ToolArgs<typeof C.inbox>) => ({ tag, search, sort, limit });

const value = async <T>(p: Promise<T>): Promise<Reply> => ({ value: await p });

export const startTool = toolOf(C.start, async ({ app }, a) =>
  value(startTask(app, a.id, { agent: a.agent, model: a.model })),
);

export const waitTool = toolOf(C.wait, async ({ app }, a) => value(waitTask(app, a.id, a.timeout)));

export const askTool = toolOf(C.ask, async ({ app }, a) => value(askTask(app, a.id, a.question, a.timeout)));

/** accept without a confirmation prompt: the tool call is the consent (lazy accept --yes). */
export const acceptTool = toolOf(C.accept, async ({ app }, a) =>
  value(acceptTask(app, a.id, { decisions: decisions(a) })),
);

export const builderTools: Tool[] = [
  toolOf(C.list, async ({ app }, a) => {
    const { all, status, parent, queued, paused } = a;
    return value(listTasks(app, { all, status, ...filterInput(a), parent, queued, paused }));
  }),
  toolOf(C.show, async ({ app }, a) => value(showTask(app, a.id))),
  toolOf(C.inbox, async ({ app }, a) => value(inbox(app, filterInput(a)))),
  toolOf(C.usage, async ({ app }, a) =>
    value(usage(app, { by: a.by as UsageBy | undefined, since: a.since, until: a.until })),
  ),
  toolOf(C.create, async ({ app }, a) => value(createTask(app, createInput(a, a.parent)))),
  toolOf(C.comment, async ({ app }, a) => value(commentTask(app, a.id, a.message))),
  startTool,
  toolOf(C.unblock, async ({ app }, a) =>
    value(
      unblockTask(app, a.id, a.message, decisions(a), {
        tokens: opt<number>(a, 'budget'),
        cost_usd: opt<number>(a, 'budget_usd'),
      }),
    ),
  ),
  toolOf(C.answer, async ({ app }, a) => value(answerTask(app, a.id, a.message))),
  askTool,
  waitTool,
  acceptTool,
  abandonTool('reject'),
  ...lifecycleTools,
  // A builder is the person's delegate and already runs commands where it works: lazy_run puts one on the record.
  // Never an agent's tool: an agent reports its own commands in its turn's result.
  toolOf(C.run, async ({ app, signal }, a) => value(runCommand(app, a.id, a.command, { stdin: 'ignore', signal }))),
];
