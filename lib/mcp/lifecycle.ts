import { usageError } from '../core/errors.js';
import { stopTask } from '../ops/stop/index.js';
import { resumeTask } from '../ops/turn.js';
import { closeTask, reopenTask } from '../ops/close.js';
import { submitExit, submitTask } from '../ops/submit.js';
import { parsePriority, scheduleTasks, type QueueAction } from '../ops/queue.js';
import { editTask } from '../ops/review.js';
import type { Reply } from './port.js';
import { object, str, strs, num, bool, opt, req, type Tool } from './schema.js';

// The builder's lifecycle tools beyond the turn's own (lib/mcp/builder.ts): one per CLI command that moves or
// changes a task, with the command's options and its operation, so every action a person has on the CLI (pair
// aside: it needs a terminal) is served here with the same codes and messages.

const ID = str('task id or unique prefix (4+ characters)');
const IDS = strs('task ids or unique prefixes (4+ characters)');

const value = async <T>(p: Promise<T>): Promise<Reply> => ({ value: await p });

const abandon = (action: 'close', description: string): Tool => ({
  name: `lazy_${action}`,
  description,
  inputSchema: object(
    {
      id: ID,
      reason: str('why'),
      delete_branch: bool('delete the task branch even if it holds commits merged nowhere'),
    },
    ['id'],
  ),
  run: async ({ app }, a) =>
    value(closeTask(app, req(a, 'id'), action, { reason: opt(a, 'reason'), deleteBranch: opt(a, 'delete_branch') })),
});

/** queue, unqueue, pause, unpause: the CLI prints one `{task}` per id (an array, so `{items}` here). */
const schedule = (action: QueueAction, description: string): Tool => ({
  name: `lazy_${action}`,
  description,
  inputSchema: object(
    action === 'queue' ? { ids: IDS, priority: num('an integer: higher runs first (default 0)') } : { ids: IDS },
    ['ids'],
  ),
  // The operation reconciles after its writes (a pause lands before a crash it holds is resumed), as the CLI's.
  reconcile: false,
  run: async ({ app }, a) => {
    const tasks = await scheduleTasks(app, action, req<string[]>(a, 'ids'), {
      priority: parsePriority(a.priority === undefined ? undefined : String(a.priority)),
    });
    return { value: tasks.map((task) => ({ task })) };
  },
});

export const lifecycleTools: Tool[] = [
  {
    name: 'lazy_stop',
    description:
      'Stop the running turn: SIGTERM, then SIGKILL after the grace period; never auto-resumed. force breaks the ' +
      'claim of a turn running in a clone or machine that is gone (lazy stop --json).',
    inputSchema: object({ id: ID, force: bool('break the claim of a turn running elsewhere that is gone') }, ['id']),
    run: async ({ app }, a) => value(stopTask(app, req(a, 'id'), { force: opt(a, 'force') === true })),
  },
  {
    name: 'lazy_resume',
    description: 'Resume an interrupted task: a new turn on its branch (lazy resume --json).',
    inputSchema: object({ id: ID }, ['id']),
    run: async ({ app }, a) => value(resumeTask(app, req(a, 'id'))),
  },
  abandon('close', 'Close a task that will not be done (→ abandoned) (lazy close --json).'),
  {
    name: 'lazy_reopen',
    description: 'Reopen a complete or abandoned task (a reason is required for a complete one) (lazy reopen --json).',
    inputSchema: object({ id: ID, reason: str('why') }, ['id']),
    run: async ({ app }, a) => value(reopenTask(app, req(a, 'id'), opt(a, 'reason'))),
  },
  {
    name: 'lazy_submit',
    description:
      'Hand the reviewed work to a forge: push lazy/<id>, mark the task submitted, run forge.pr_command (lazy submit --json); a failed PR command or push is a tool error carrying the same document.',
    inputSchema: object({ id: ID, remote: str('the git remote (default: origin, or the only one)') }, ['id']),
    run: async ({ app }, a) => {
      const s = await submitTask(app, req(a, 'id'), opt(a, 'remote'));
      return { value: s, failed: submitExit(s) !== 0 };
    },
  },
  schedule('queue', 'Queue backlog or interrupted tasks for lazy work (priority: higher first) (lazy queue --json).'),
  schedule('unqueue', 'Take tasks out of the queue (lazy unqueue --json).'),
  schedule('pause', 'Pause queued tasks: no worker picks them until unpaused (lazy pause --json).'),
  schedule('unpause', 'Unpause tasks (lazy unpause --json).'),
  {
    name: 'lazy_edit',
    description:
      "Change a task's goal, prompt or agent, or add acceptance criteria or tags (lazy edit --json); name at least one.",
    inputSchema: object(
      {
        id: ID,
        goal: str('replace the goal'),
        prompt: str('replace the instructions for the agent'),
        accept: strs('acceptance criteria to add'),
        tags: strs('tags to add'),
        agent: str('the agent to run this task with'),
      },
      ['id'],
    ),
    run: async ({ app }, a) => {
      const e = {
        goal: opt<string>(a, 'goal'),
        prompt: opt<string>(a, 'prompt'),
        accept: opt<string[]>(a, 'accept'),
        tags: opt<string[]>(a, 'tags'),
        agent: opt<string>(a, 'agent'),
      };
      // The CLI opens an editor when no change is named; a tool call has none to open.
      if (Object.values(e).every((v) => v === undefined))
        throw usageError('lazy_edit: name a change (goal, prompt, accept, tags or agent)', { tool: 'lazy_edit' });
      return value(editTask(app, req(a, 'id'), e));
    },
  },
];
