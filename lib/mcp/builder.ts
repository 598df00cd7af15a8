import { showTask, listTasks } from '../ops/query.js';
import { startTask } from '../ops/start.js';
import { waitTask } from '../ops/wait.js';
import { askTask } from '../ops/ask.js';
import { acceptTask } from '../ops/accept/index.js';
import { inbox } from '../ops/review.js';
import { createTask } from '../ops/create.js';
import { commentTask } from '../ops/comment.js';
import { unblockTask, answerTask } from '../ops/turn.js';
import { closeTask } from '../ops/close.js';
import { lifecycleTools } from './lifecycle.js';
import type { DecisionFlags } from '../ops/decisions.js';
import type { Reply } from './port.js';
import { SORTS } from '../ops/sorts.js';
import { object, str, strs, num, bool, opt, req, type Args, type Tool } from './schema.js';

// The builder's tools: each calls the lifecycle operation its CLI command calls, with the same
// options (bin/commands/<command>.ts), so a tool's reply is what `lazy <command> --json` prints.

export const ID = str('task id or unique prefix (4+ characters)');

/** accept's and unblock's protected-file decisions (--approve-file, --revert-file, --approve-all, --revert-all). */
export const DECISIONS = {
  approve_files: strs('keep the change to these protected files'),
  revert_files: strs('restore these protected files'),
  approve_all: bool('keep the change to every pending protected file'),
  revert_all: bool('restore every pending protected file'),
};

export const decisions = (a: Args): DecisionFlags => ({
  approve: opt<string[]>(a, 'approve_files'),
  revert: opt<string[]>(a, 'revert_files'),
  approveAll: opt<boolean>(a, 'approve_all'),
  revertAll: opt<boolean>(a, 'revert_all'),
});

export const CREATE_PROPS = {
  goal: str('what the task should achieve'),
  prompt: str('instructions for the agent (default: the goal)'),
  accept: strs('acceptance criteria'),
  tags: strs('tags'),
  agent: str('agent to run this task with'),
};

export const createInput = (a: Args, parent: string | undefined) => ({
  goal: [req<string>(a, 'goal')],
  prompt: opt<string>(a, 'prompt'),
  accept: opt<string[]>(a, 'accept'),
  parent,
  tags: opt<string[]>(a, 'tags'),
  agent: opt<string>(a, 'agent'),
});

/** list's and inbox's filters (--tag…, --search, --sort, --limit). */
const FILTER_PROPS = {
  tag: strs('only tasks carrying every one of these tags'),
  search: str('only tasks whose goal, prompt or acceptance criteria contain this text (any case)'),
  sort: str(`${SORTS.join(', ')}: oldest first, newest change first, or the queue's order`),
  limit: num('at most this many'),
};

const filterInput = (a: Args) => ({
  tag: opt<string[]>(a, 'tag'),
  search: opt<string>(a, 'search'),
  sort: opt<string>(a, 'sort'),
  limit: opt<number>(a, 'limit'),
});

const value = async <T>(p: Promise<T>): Promise<Reply> => ({ value: await p });

const showTool: Tool = {
  name: 'lazy_show',
  description: 'A task: record, status, available actions, turns and changelog (lazy show --json).',
  inputSchema: object({ id: ID }, ['id']),
  run: async ({ app }, a) => value(showTask(app, req(a, 'id'))),
};

export const startTool: Tool = {
  name: 'lazy_start',
  description: "Launch the task's first turn; returns once it is running (lazy start --json).",
  inputSchema: object({ id: ID, agent: str('agent to use for this task') }, ['id']),
  run: async ({ app }, a) => value(startTask(app, req(a, 'id'), { agent: opt(a, 'agent') })),
};

export const waitTool: Tool = {
  name: 'lazy_wait',
  description:
    'Block until the task leaves working; an error unless it lands blocked or in conflict (lazy wait --json).',
  inputSchema: object({ id: ID, timeout: num('give up after this many seconds (a timeout error)') }, ['id']),
  run: async ({ app }, a) => value(waitTask(app, req(a, 'id'), opt<number>(a, 'timeout'))),
};

export const askTool: Tool = {
  name: 'lazy_ask',
  description:
    "Ask a blocked task's agent a question and wait for the answer; the status is unchanged (lazy ask --json).",
  inputSchema: object(
    { id: ID, question: str('the question'), timeout: num('give up waiting after this many seconds') },
    ['id', 'question'],
  ),
  run: async ({ app }, a) => value(askTask(app, req(a, 'id'), req(a, 'question'), opt(a, 'timeout'))),
};

/** accept without a confirmation prompt: the tool call is the consent (lazy accept --yes). */
export const acceptTool: Tool = {
  name: 'lazy_accept',
  description: 'Squash-merge the task into its target; the call is the consent (lazy accept --yes --json).',
  inputSchema: object({ id: ID, ...DECISIONS }, ['id']),
  run: async ({ app }, a) => value(acceptTask(app, req(a, 'id'), { decisions: decisions(a) })),
};

export const builderTools: Tool[] = [
  {
    name: 'lazy_list',
    description: 'List tasks, non-terminal ones unless all or status is given (lazy list --json).',
    inputSchema: object({
      all: bool('include complete and abandoned tasks'),
      status: strs('only these statuses'),
      ...FILTER_PROPS,
      parent: str('only subtasks of this task'),
      queued: bool('only queued tasks, in the order a worker picks them'),
      paused: bool('only paused tasks'),
    }),
    run: async ({ app }, a) => {
      return value(
        listTasks(app, {
          all: opt(a, 'all'),
          status: opt(a, 'status'),
          ...filterInput(a),
          parent: opt(a, 'parent'),
          queued: opt(a, 'queued'),
          paused: opt(a, 'paused'),
        }),
      );
    },
  },
  showTool,
  {
    name: 'lazy_inbox',
    description: 'Tasks that need a human, oldest first, with what they need (lazy inbox --json).',
    inputSchema: object(FILTER_PROPS),
    run: async ({ app }, a) => value(inbox(app, filterInput(a))),
  },
  {
    name: 'lazy_create',
    description: 'Create a task (lazy create --json).',
    inputSchema: object({ ...CREATE_PROPS, parent: str('make this a subtask of this task') }, ['goal']),
    run: async ({ app }, a) => value(createTask(app, createInput(a, opt(a, 'parent')))),
  },
  {
    name: 'lazy_comment',
    description: 'Add a comment: a human turn that changes no status (lazy comment --json).',
    inputSchema: object({ id: ID, message: str('the comment') }, ['id', 'message']),
    run: async ({ app }, a) => value(commentTask(app, req(a, 'id'), req(a, 'message'))),
  },
  startTool,
  {
    name: 'lazy_unblock',
    description: 'Send feedback and start the next turn (lazy unblock --json).',
    inputSchema: object({ id: ID, message: str('the feedback'), ...DECISIONS }, ['id', 'message']),
    run: async ({ app }, a) => value(unblockTask(app, req(a, 'id'), req(a, 'message'), decisions(a))),
  },
  {
    name: 'lazy_answer',
    description:
      "Answer a pending decision: the agent's question, or a missing completion condition (lazy answer --json).",
    inputSchema: object({ id: ID, message: str('the answer') }, ['id', 'message']),
    run: async ({ app }, a) => value(answerTask(app, req(a, 'id'), req(a, 'message'))),
  },
  askTool,
  waitTool,
  acceptTool,
  {
    name: 'lazy_reject',
    description: 'Reject the work of a task, which becomes abandoned (lazy reject --json).',
    inputSchema: object(
      { id: ID, reason: str('why'), delete_branch: bool('delete the task branch even if it holds unmerged commits') },
      ['id'],
    ),
    run: async ({ app }, a) =>
      value(
        closeTask(app, req(a, 'id'), 'reject', {
          reason: opt(a, 'reason'),
          deleteBranch: opt(a, 'delete_branch'),
        }),
      ),
  },
  ...lifecycleTools,
];
