import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { notAllowed, usageError } from '../core/errors.js';
import { writeFileAtomicSync } from '../core/fsutil.js';
import { parseEnvelope, type Envelope } from '../agents/adapters/envelope.js';
import { resultPathOf } from '../agents/launch.js';
import type { RunRecord } from '../agents/runs.js';
import { beginWaitOn, writeProgress, PROGRESS_MAX } from '../agents/substate.js';
import type { TaskView } from '../model/fold.js';
import { acceptTask } from '../ops/accept/index.js';
import { askTask } from '../ops/ask.js';
import { createTask } from '../ops/create.js';
import { showTask } from '../ops/show.js';
import { taskArg } from '../ops/resolve.js';
import { startTask } from '../ops/start.js';
import { waitTask } from '../ops/wait.js';
import type { App } from '../ops/app.js';
import { ID, CREATE_PROPS, createInput, decisions, acceptTool, askTool, startTool, waitTool } from './builder.js';
import { object, str, strs, opt, req, type Tool } from './schema.js';

// The tools of an agent's own server (`lazy mcp --run <run>`). The binding (task, worktree, run)
// comes from the run record lazy wrote when it launched the agent, never from an argument.
// Invariant: an agent acts on its own task and its direct subtasks only, and accepts only a subtask;
// and it acts only while its run is the task's current one (reading goes on after).

/** The refusal every out-of-scope call gets: the CLI's action_not_allowed, naming the task's status and actions. */
async function scoped(app: App, rec: RunRecord, idArg: string, action: string, own: boolean) {
  const { id, view } = await taskArg(app, idArg);
  if (view.parent === rec.task || (own && id === rec.task)) return id;
  const why =
    id === rec.task
      ? `an agent cannot ${action} its own task ${id}`
      : `task ${id} is outside this agent's scope: its own task ${rec.task} and that task's direct subtasks`;
  throw notAllowed(action, view.status, view.available_actions, why, { task: id, own_task: rec.task });
}

/**
 * The refusal every tool that changes anything gets once its run is over: an ended turn's server
 * (or anything the agent left running) must not act for it, say accept a subtask nobody reviewed.
 */
async function assertCurrent(app: App, rec: RunRecord, action: string): Promise<void> {
  const v: TaskView = await app.store.view(rec.task);
  if (v.status === 'working' && v.current_run === rec.id) return;
  throw notAllowed(
    action,
    v.status,
    v.available_actions,
    `task ${rec.task} is no longer working on run ${rec.id}: the turn this agent was started for has ended`,
    { task: rec.task, run: rec.id },
  );
}

/** The result envelope, written where the supervisor reads $LAZY_RESULT (the run's turn is still going: agentTools checks). */
async function writeEnvelope(rec: RunRecord, action: string, doc: Envelope) {
  const text = JSON.stringify(doc, null, 2);
  const read = parseEnvelope(text);
  if (read.kind === 'malformed') throw usageError(`${action}: ${read.error}`);
  const path = resultPathOf(rec.worktree, rec.id);
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomicSync(path, text);
  return {
    value: { task: rec.task, run: rec.id, result_file: path, envelope: doc },
    text: `Recorded (${doc.status}) for task ${rec.task}. End your turn now: lazy reads the result when you exit.`,
  };
}

const COMMAND = object({ command: { type: 'string' }, exit_code: { type: 'integer' } }, ['command', 'exit_code']);

/** An ask is read-only: its agent reports and answers, and changes nothing else through lazy. */
const ASK_TOOLS = new Set(['lazy_update_progress', 'lazy_finish', 'lazy_show']);

/** The tools that only read; every other one acts for the run, so only while its turn is going. */
const READ_ONLY = new Set(['lazy_show']);

export function agentTools(rec: RunRecord): Tool[] {
  const tools = allAgentTools(rec).map((t): Tool => {
    if (READ_ONLY.has(t.name)) return t;
    const action = t.name.replace(/^lazy_/, '');
    // Checked as the call begins: a wait or an ask then runs as long as it takes.
    const run: Tool['run'] = async (ctx, a) => {
      await assertCurrent(ctx.app, rec, action);
      return t.run(ctx, a);
    };
    return { ...t, run };
  });
  return rec.kind === 'ask' ? tools.filter((t) => ASK_TOOLS.has(t.name)) : tools;
}

function allAgentTools(rec: RunRecord): Tool[] {
  return [...turnTools(rec), ...subtaskTools(rec)];
}

const lazyDir = (app: App) => app.repo.lazyDir;

/** The agent's own turn: what it is doing now, and how the turn ends (a question, or the work done). */
function turnTools(rec: RunRecord): Tool[] {
  return [
    {
      name: 'lazy_update_progress',
      description: `Say what you are doing now, in one line (at most ${PROGRESS_MAX} characters); people see it as the task's status.`,
      inputSchema: object({ message: str('one line of progress, e.g. "running migration 3/7"') }, ['message']),
      run: async ({ app }, a) => {
        const p = writeProgress(lazyDir(app), rec.id, req(a, 'message'));
        const how = p.truncated ? `recorded (cut to ${PROGRESS_MAX} of ${p.length} characters)` : 'recorded';
        return { value: { task: rec.task, run: rec.id, ...p }, text: `${how}: ${p.message}` };
      },
    },
    {
      name: 'lazy_request_decision',
      description: 'Ask the person a question you cannot decide; your turn ends as decision_required.',
      inputSchema: object({ question: str('the decision you need, with the options') }, ['question']),
      run: async (_ctx, a) =>
        writeEnvelope(rec, 'request_decision', {
          status: 'decision_required',
          summary: req(a, 'question'),
          question: req(a, 'question'),
        }),
    },
    {
      name: 'lazy_finish',
      description: 'Report your work as done: the result lazy reviews. End your turn right after.',
      inputSchema: object(
        {
          summary: str('what you did'),
          risks: strs('what a reviewer should look at'),
          commands: { type: 'array', items: COMMAND, description: 'commands you ran, with their exit codes' },
        },
        ['summary'],
      ),
      run: async (_ctx, a) =>
        writeEnvelope(rec, 'finish', {
          status: 'completed',
          summary: req(a, 'summary'),
          ...(a.risks !== undefined ? { risks: req<string[]>(a, 'risks') } : {}),
          ...(a.commands !== undefined ? { commands: req<Envelope['commands']>(a, 'commands') } : {}),
        }),
    },
  ];
}

/** Its task's direct subtasks: created, started, waited on, asked, shown (its own task too) and accepted. */
function subtaskTools(rec: RunRecord): Tool[] {
  return [
    {
      name: 'lazy_create_subtask',
      description: 'Create a subtask of your task (lazy create --parent <your task> --json).',
      inputSchema: object(CREATE_PROPS, ['goal']),
      run: async ({ app }, a) => ({ value: await createTask(app, createInput(a, rec.task)) }),
    },
    {
      ...startTool,
      description: 'Start a subtask of your task (lazy start --json).',
      run: async ({ app }, a) => ({
        value: await startTask(app, await scoped(app, rec, req(a, 'id'), 'start', false), {
          agent: opt(a, 'agent'),
          model: opt(a, 'model'),
        }),
      }),
    },
    {
      ...waitTool,
      description: 'Wait for a subtask of your task to leave working (lazy wait --json); people see you waiting on it.',
      run: async ({ app }, a) => {
        const id = await scoped(app, rec, req(a, 'id'), 'wait', false);
        const end = beginWaitOn(lazyDir(app), rec.id, id);
        try {
          return { value: await waitTask(app, id, opt<number>(a, 'timeout')) };
        } finally {
          end();
        }
      },
    },
    {
      ...askTool,
      description: "Ask a subtask's agent a question and wait for the answer (lazy ask --json).",
      run: async ({ app }, a) => {
        const id = await scoped(app, rec, req(a, 'id'), 'ask', true);
        // Waiting for a subtask's answer is a wait on it, as lazy_wait is: shown, and not the agent's time.
        const end = beginWaitOn(lazyDir(app), rec.id, id);
        try {
          return { value: await askTask(app, id, req(a, 'question'), opt<number>(a, 'timeout')) };
        } finally {
          end();
        }
      },
    },
    {
      name: 'lazy_show',
      description: 'Your task, or one of its direct subtasks (lazy show --json).',
      inputSchema: object({ id: { ...ID, description: `${ID.description}; default: your own task` } }),
      run: async ({ app }, a) => {
        const id = a.id === undefined ? rec.task : await scoped(app, rec, req(a, 'id'), 'show', true);
        return { value: await showTask(app, id) };
      },
    },
    {
      ...acceptTool,
      description:
        'Squash-merge a finished subtask into your task branch (lazy accept --yes --json); never your own task.',
      run: async ({ app }, a) => {
        const id = await scoped(app, rec, req(a, 'id'), 'accept', false);
        return { value: await acceptTask(app, id, { decisions: decisions(a) }) };
      },
    },
  ];
}
