import { SORTS } from '../sorts.js';
import { id, message, type ArgContract, type CommandContract } from './types.js';

// The contracts of the commands that read, create and change task records.

/** --tag, --search, --sort, --limit: list's and inbox's shared filters. */
const FILTERS = [
  {
    name: 'tag',
    alias: 't',
    type: 'string',
    array: true,
    describe: 'only tasks with this tag (repeat: all must match)',
    tool: { description: 'only tasks carrying every one of these tags' },
  },
  {
    name: 'search',
    type: 'string',
    describe: 'only tasks whose goal, prompt or criteria contain TEXT (any case)',
    tool: { description: 'only tasks whose goal, prompt or acceptance criteria contain this text (any case)' },
  },
  {
    name: 'sort',
    choices: SORTS,
    describe: 'order: created (oldest first), updated (newest first), priority',
    tool: { description: `${SORTS.join(', ')}: oldest first, newest change first, or the queue's order` },
  },
  {
    name: 'limit',
    alias: 'n',
    type: 'number',
    describe: 'print at most N tasks',
    tool: { description: 'at most this many' },
  },
] as const satisfies readonly ArgContract[];

/** create's and edit's criteria and tags: the same arguments, worded for setting or adding. */
const criteria = (describe: string, description: string) =>
  ({ name: 'accept', type: 'string', array: true, describe, tool: { description } }) as const satisfies ArgContract;
const tags = (describe: string, description: string) =>
  ({
    name: 'tag',
    type: 'string',
    array: true,
    describe,
    tool: { name: 'tags', description },
  }) as const satisfies ArgContract;
export const list = {
  name: 'list',
  aliases: ['ls'],
  describe: 'List tasks (non-terminal ones unless --all or --status)',
  args: [
    ...FILTERS,
    { name: 'all', alias: 'a', type: 'boolean', describe: 'include complete and abandoned tasks' },
    {
      name: 'status',
      alias: 's',
      type: 'string',
      array: true,
      describe: 'only these statuses (repeatable or comma-separated)',
      tool: { description: 'only these statuses' },
    },
    {
      name: 'parent',
      type: 'string',
      describe: 'only subtasks of ID',
      tool: { description: 'only subtasks of this task' },
    },
    {
      name: 'tree',
      type: 'boolean',
      describe: 'show subtasks under their parents',
      cliOnly: 'a layout of the text output',
    },
    { name: 'queued', type: 'boolean', describe: 'only queued tasks, in the order a worker picks them' },
    { name: 'paused', type: 'boolean', describe: 'only paused tasks' },
  ],
  tool: {
    description: 'List tasks, non-terminal ones unless all or status is given (lazy list --json).',
    order: ['all', 'status', 'tag', 'search', 'sort', 'limit', 'parent', 'queued', 'paused'],
  },
} as const satisfies CommandContract;

export const show = {
  name: 'show',
  describe: 'Show a task: record, status, available actions, turns and changelog',
  args: [
    id('the task to show'),
    {
      name: 'markdown',
      type: 'boolean',
      describe: 'print the review as the Markdown pull request body lazy submit hands to forge.pr_command',
      cliOnly: 'a text rendering; the tool returns the document',
    },
  ],
  tool: { description: 'A task: record, status, available actions, turns and changelog (lazy show --json).' },
} as const satisfies CommandContract;

export const inbox = {
  name: 'inbox',
  describe: 'Tasks that need a human, oldest first, with what they need',
  args: FILTERS,
  tool: { description: 'Tasks that need a human, oldest first, with what they need (lazy inbox --json).' },
} as const satisfies CommandContract;

/** lazy usage: what the agents cost, per group. */
export const usage = {
  name: 'usage',
  describe: 'What the agents cost: tokens, cost and agent time per task, agent, model, day or week',
  args: [
    {
      name: 'by',
      choices: ['task', 'agent', 'model', 'day', 'week'],
      describe: 'group by task (default), agent, model, UTC day or ISO week',
      tool: { description: 'task (default), agent, model, day (UTC) or week (ISO, 2026-W49)' },
    },
    {
      name: 'since',
      type: 'string',
      describe: 'only turns that ended on or after DATE (YYYY-MM-DD, a UTC day) or an ISO time',
      tool: { description: 'only turns that ended on or after this day (YYYY-MM-DD, UTC) or ISO time' },
    },
    {
      name: 'until',
      type: 'string',
      describe: 'only turns that ended on or before DATE (YYYY-MM-DD, the whole UTC day) or an ISO time',
      tool: { description: 'only turns that ended on or before this day (YYYY-MM-DD, the whole UTC day) or ISO time' },
    },
  ],
  tool: {
    description:
      'What the agents cost: input, output and cache tokens, cost (reported, else priced by config pricing; unknown is never 0) and agent time, per group, with a total (lazy usage --json).',
  },
} as const satisfies CommandContract;

export const create = {
  name: 'create',
  describe: 'Create a task and print its id',
  args: [
    {
      name: 'goal',
      positional: true,
      type: 'string',
      array: true,
      describe: 'what the task should achieve',
      // The CLI joins its words, or opens the editor when there are none.
      tool: { type: 'string', required: true },
    },
    { name: 'prompt', type: 'string', describe: 'instructions for the agent (default: the goal)' },
    {
      name: 'prompt-file',
      type: 'string',
      describe: 'read the prompt from a file (- for stdin)',
      cliOnly: "the caller's files are not the server's; the tool takes the prompt itself",
    },
    criteria('an acceptance criterion (repeatable)', 'acceptance criteria'),
    {
      name: 'parent',
      type: 'string',
      describe: 'make this a subtask of ID',
      tool: { description: 'make this a subtask of this task' },
    },
    tags('a tag (repeatable)', 'tags'),
    { name: 'agent', type: 'string', describe: 'agent to run this task with' },
    { name: 'model', type: 'string', describe: "model to run this task's turns with (default: agents.<name>.model)" },
  ],
  tool: {
    description: 'Create a task (lazy create --json).',
    order: ['goal', 'prompt', 'accept', 'tags', 'agent', 'model', 'parent'],
  },
} as const satisfies CommandContract;

export const comment = {
  name: 'comment',
  describe: 'Add a comment (a human turn that changes no status)',
  args: [id('the task to comment on'), message('the comment (or pipe it on stdin)', { description: 'the comment' })],
  tool: { description: 'Add a comment: a human turn that changes no status (lazy comment --json).' },
} as const satisfies CommandContract;

export const edit = {
  name: 'edit',
  describe: 'Change a task: --goal, --prompt, add --accept criteria or --tag, set --agent or --model',
  args: [
    id('the task to change'),
    { name: 'goal', type: 'string', describe: 'replace the goal' },
    { name: 'prompt', type: 'string', describe: 'replace the instructions for the agent' },
    criteria('add an acceptance criterion (repeatable)', 'acceptance criteria to add'),
    tags('add a tag (repeatable)', 'tags to add'),
    { name: 'agent', type: 'string', describe: 'the agent to run this task with' },
    { name: 'model', type: 'string', describe: "the model to run this task's turns with ('' for the agent's)" },
  ],
  tool: {
    description:
      "Change a task's goal, prompt, agent or model, or add acceptance criteria or tags (lazy edit --json); name at least one.",
  },
} as const satisfies CommandContract;
