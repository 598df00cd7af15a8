import { showTask, listTasks } from '../ops/query.js';
import { startTask } from '../ops/start.js';
import { waitTask } from '../ops/wait.js';
import { askTask } from '../ops/ask.js';
import { acceptTask } from '../ops/accept.js';
import { inbox } from '../ops/review.js';
import { createTask } from '../ops/create.js';
import { commentTask } from '../ops/comment.js';
import { unblockTask, answerTask } from '../ops/turn.js';
import { abandonTool, lifecycleTools } from './lifecycle.js';
import type { DecisionFlags } from '../ops/decisions.js';
import type { Reply } from './port.js';
import { CONTRACTS as C, ID_TEXT } from '../ops/contract/index.js';
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
});

/** list's and inbox's filters (--tag…, --search, --sort, --limit). */
const filterInput = (a: Args) => ({
  tag: opt<string[]>(a, 'tag'),
  search: opt<string>(a, 'search'),
  sort: opt<string>(a, 'sort'),
  limit: opt<number>(a, 'limit'),
});

const value = async <T>(p: Promise<T>): Promise<Reply> => ({ value: await p });

export const startTool = toolOf(C.start, async ({ app }, a) =>
  value(startTask(app, req(a, 'id'), { agent: opt(a, 'agent') })),
);

export const waitTool = toolOf(C.wait, async ({ app }, a) =>
  value(waitTask(app, req(a, 'id'), opt<number>(a, 'timeout'))),
);

export const askTool = toolOf(C.ask, async ({ app }, a) =>
  value(askTask(app, req(a, 'id'), req(a, 'question'), opt(a, 'timeout'))),
);

/** accept without a confirmation prompt: the tool call is the consent (lazy accept --yes). */
export const acceptTool = toolOf(C.accept, async ({ app }, a) =>
  value(acceptTask(app, req(a, 'id'), { decisions: decisions(a) })),
);

export const builderTools: Tool[] = [
  toolOf(C.list, async ({ app }, a) =>
    value(
      listTasks(app, {
        all: opt(a, 'all'),
        status: opt(a, 'status'),
        ...filterInput(a),
        parent: opt(a, 'parent'),
        queued: opt(a, 'queued'),
        paused: opt(a, 'paused'),
      }),
    ),
  ),
  toolOf(C.show, async ({ app }, a) => value(showTask(app, req(a, 'id')))),
  toolOf(C.inbox, async ({ app }, a) => value(inbox(app, filterInput(a)))),
  toolOf(C.create, async ({ app }, a) => value(createTask(app, createInput(a, opt(a, 'parent'))))),
  toolOf(C.comment, async ({ app }, a) => value(commentTask(app, req(a, 'id'), req(a, 'message')))),
  startTool,
  toolOf(C.unblock, async ({ app }, a) => value(unblockTask(app, req(a, 'id'), req(a, 'message'), decisions(a)))),
  toolOf(C.answer, async ({ app }, a) => value(answerTask(app, req(a, 'id'), req(a, 'message')))),
  askTool,
  waitTool,
  acceptTool,
  abandonTool('reject'),
  ...lifecycleTools,
];
