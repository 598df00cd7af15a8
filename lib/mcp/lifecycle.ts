import { usageError } from '../core/errors.js';
import { stopTask } from '../ops/stop/index.js';
import { resumeTask } from '../ops/resume.js';
import { closeTask } from '../ops/close.js';
import { reopenTask } from '../ops/reopen.js';
import { submitExit, submitTask } from '../ops/submit.js';
import { parsePriority, scheduleTasks, type QueueAction } from '../ops/queue.js';
import { editTask } from '../ops/edit.js';
import { followUpTask, repairTask } from '../ops/round/index.js';
import type { Reply } from './port.js';
import { CONTRACTS as C } from '../ops/contract/index.js';
import { toolOf, type Tool } from './schema.js';

// The builder's lifecycle tools beyond the turn's own (lib/mcp/builder.ts): one per CLI command that moves or
// changes a task, with the command's options (its contract, lib/ops/contract/) and its operation, so every action
// a person has on the CLI (pair aside: it needs a terminal) is served here with the same codes and messages.

const value = async <T>(p: Promise<T>): Promise<Reply> => ({ value: await p });

/** close and reject: the task abandoned, with the reason given. */
export const abandonTool = (action: 'close' | 'reject'): Tool =>
  toolOf(C[action], async ({ app }, a) =>
    value(closeTask(app, a.id, action, { reason: a.reason, deleteBranch: a.delete_branch })),
  );

/** queue, unqueue, pause, unpause: the CLI prints one `{task}` per id (an array, so `{items}` here). */
const schedule = (action: QueueAction): Tool =>
  toolOf(C[action], async ({ app }, a) => {
    const tasks = await scheduleTasks(app, action, a.ids, {
      priority: parsePriority(a.priority === undefined ? undefined : String(a.priority)),
    });
    return { value: tasks.map((task) => ({ task })) };
  });

export const lifecycleTools: Tool[] = [
  toolOf(C.stop, async ({ app }, a) => value(stopTask(app, a.id, { force: a.force === true }))),
  toolOf(C.resume, async ({ app }, a) => value(resumeTask(app, a.id))),
  abandonTool('close'),
  toolOf(C.reopen, async ({ app }, a) => value(reopenTask(app, a.id, a.reason))),
  toolOf(C.followUp, async ({ app }, a) => {
    if ((a.message === undefined) === (a.command === undefined))
      throw usageError('lazy_follow_up: give message (a prompt for the agent) or command, one of them', {
        tool: 'lazy_follow_up',
      });
    return value(followUpTask(app, a.id, { text: a.message, agent: a.agent, command: a.command }));
  }),
  toolOf(C.repair, async ({ app }, a) => value(repairTask(app, a.id, { text: a.message, agent: a.agent }))),
  toolOf(C.submit, async ({ app }, a) => {
    const s = await submitTask(app, a.id, a.remote);
    return { value: s, failed: submitExit(s) !== 0 };
  }),
  schedule('queue'),
  schedule('unqueue'),
  schedule('pause'),
  schedule('unpause'),
  toolOf(C.edit, async ({ app }, a) => {
    const e = {
      goal: a.goal,
      prompt: a.prompt,
      accept: a.accept,
      tags: a.tags,
      agent: a.agent,
      model: a.model,
    };
    // The CLI opens an editor when no change is named; a tool call has none to open.
    if (Object.values(e).every((v) => v === undefined))
      throw usageError('lazy_edit: name a change (goal, prompt, accept, tags, agent or model)', { tool: 'lazy_edit' });
    return value(editTask(app, a.id, e));
  }),
];
