import { decisionArgs, follow, id, message, type CommandContract } from './types.js';

// The contracts of the commands that start, feed, question, await and stop a task's turns.

export const start = {
  name: 'start',
  describe: "Launch the task's first turn (returns once it is running)",
  args: [
    id('the task to start'),
    { name: 'agent', type: 'string', describe: 'agent to use for this task' },
    { name: 'model', type: 'string', describe: "model to use for this task's turns" },
    follow(),
  ],
  tool: { description: "Launch the task's first turn; returns once it is running (lazy start --json)." },
} as const satisfies CommandContract;

export const unblock = {
  name: 'unblock',
  describe: 'Send feedback and start the next turn (-m, stdin or $EDITOR)',
  args: [
    id('the task to send feedback to'),
    message('the feedback'),
    follow(),
    ...decisionArgs('on the task branch'),
    {
      name: 'budget',
      type: 'number',
      describe: "this task's own token budget from now on, over budget.task_tokens (lets a task past it go on)",
      tool: { description: "this task's own token budget from now on, over the repository's budget.task_tokens" },
    },
    {
      name: 'budget-usd',
      type: 'number',
      describe: "this task's own cost budget in US dollars from now on, over budget.task_cost_usd",
      tool: { description: "this task's own cost budget in US dollars, over the repository's budget.task_cost_usd" },
    },
  ],
  tool: { description: 'Send feedback and start the next turn (lazy unblock --json).' },
} as const satisfies CommandContract;

export const answer = {
  name: 'answer',
  describe: "Answer a pending decision (the agent's question, or a missing completion condition)",
  args: [id('the task whose decision to answer'), message('the answer'), follow()],
  tool: {
    description:
      "Answer a pending decision: the agent's question, or a missing completion condition (lazy answer --json).",
  },
} as const satisfies CommandContract;

export const ask = {
  name: 'ask',
  describe: "Ask the task's agent a question; its status is unchanged afterwards",
  args: [
    id('the task whose agent to ask'),
    message('the question', { name: 'question' }),
    {
      name: 'timeout',
      type: 'number',
      describe: 'give up waiting after S seconds (the answer is still recorded)',
      tool: { description: 'give up waiting after this many seconds' },
    },
  ],
  tool: {
    description:
      "Ask a blocked task's agent a question and wait for the answer; the status is unchanged (lazy ask --json).",
  },
} as const satisfies CommandContract;

export const wait = {
  name: 'wait',
  describe: 'Block until the task leaves working; exit 0 when it is blocked or in conflict',
  args: [
    id('the task to wait for'),
    {
      name: 'timeout',
      type: 'number',
      describe: 'give up after S seconds (exit 5)',
      tool: { description: 'give up after this many seconds (a timeout error)' },
    },
    follow("stream the turn's output, readable, while waiting"),
  ],
  tool: {
    description:
      'Block until the task leaves working; an error unless it lands blocked or in conflict (lazy wait --json).',
  },
} as const satisfies CommandContract;

export const stop = {
  name: 'stop',
  describe: 'Stop a running turn: SIGTERM, then SIGKILL after a grace period; no auto-resume',
  args: [
    id('the task whose turn to stop'),
    {
      name: 'force',
      type: 'boolean',
      describe:
        "break the claim of a turn running in another clone or machine that is gone (or held by a lease nobody can renew): interrupted here, the remote's lease deleted by compare-and-swap",
      tool: { description: 'break the claim of a turn running elsewhere that is gone' },
    },
  ],
  tool: {
    description:
      'Stop the running turn: SIGTERM, then SIGKILL after the grace period; never auto-resumed. force breaks the ' +
      'claim of a turn running in a clone or machine that is gone (lazy stop --json).',
  },
} as const satisfies CommandContract;

export const resume = {
  name: 'resume',
  describe: "Start an interrupted task's next turn (no feedback needed; resets the crash counter)",
  args: [id('the task to resume'), follow()],
  tool: { description: 'Resume an interrupted task: a new turn on its branch (lazy resume --json).' },
} as const satisfies CommandContract;

export const followUp = {
  name: 'follow-up',
  describe:
    'One more piece of work on a complete or abandoned task, on its branch (an agent, or a shell command); ' +
    'the task goes back to its status, its verdict unchanged',
  args: [
    id('the task to follow up'),
    message('what the agent should do (or --command)', {
      required: false,
      description: 'what the agent should do (give this or command)',
    }),
    { name: 'agent', type: 'string', describe: 'agent to use for this round' },
    {
      name: 'command',
      type: 'string',
      describe: "run this shell command in the task's worktree instead of an agent (its output and exit code recorded)",
      tool: { description: "a shell command to run in the task's worktree instead of an agent" },
    },
    follow(),
  ],
  tool: {
    description:
      "One more round of work on a complete or abandoned task's branch (an agent prompt, or a shell command); the " +
      'task returns to its status and verdict, and the commits stay on the task branch (lazy follow-up --json).',
  },
} as const satisfies CommandContract;

export const repair = {
  name: 'repair',
  describe:
    "One throwaway agent run in a blocked or interrupted task's worktree, told the failure; " +
    'the task comes back as it was (status, reason, crash counter)',
  args: [
    id('the task to repair'),
    message('what the agent should do (the failure is added)'),
    { name: 'agent', type: 'string', describe: 'agent to use for this run' },
    follow(),
  ],
  tool: {
    description:
      "Run one agent in a blocked or interrupted task's worktree with the failure's context; the task returns to " +
      'the same status and reason, counters untouched, for you to resume, unblock or close (lazy repair --json).',
  },
} as const satisfies CommandContract;
