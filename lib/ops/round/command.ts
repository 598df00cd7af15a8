import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { env } from '../../core/env.js';
import { nowIso } from '../../core/clock.js';
import { sanitizeLine } from '../../core/sanitize.js';
import { launchTurn } from '../../agents/launch.js';
import { planRound } from '../../agents/rounds.js';
import { runDir, runFiles, writeOutcome, type RunRecord } from '../../agents/runs.js';
import { finishWork } from '../../agents/supervisor/finish.js';
import { recordOutcome } from '../../agents/supervisor/outcome/index.js';
import type { Outcome } from '../../agents/supervisor/outcome/types.js';
import { clearActive } from '../../store/markers.js';
import { assertAllowed } from '../../model/table.js';
import type { TurnStarted } from '../turn.js';
import type { App } from '../app.js';

// follow-up --command: a shell command instead of an agent, run by this process in the task's worktree and
// recorded as a round's turn is (the command, its exit code, its output's tail, what it committed). Its run is
// launched without a supervisor: this process answers for it, so if it dies the next command's reconcile records
// the run as interrupted and the task returns where it was, as for a killed supervisor.

/** How much of the output the turn records (its end). */
const TAIL_LINES = 20;
const TAIL_CHARS = 4000;

export async function runCommandRound(
  app: App,
  id: string,
  command: string,
  onOutput?: (chunk: string) => void,
): Promise<TurnStarted> {
  const { run } = await launchTurn(app.repo, app.store, app.launcher, {
    id,
    op: 'follow-up',
    kind: 'follow_up',
    spec: { name: 'shell', adapter: 'command', command: ['sh', '-c', command] },
    supervise: false,
    config: await app.config(),
    plan: (d, ref) => {
      assertAllowed('follow_up', d.view);
      return planRound(d, ref, { kind: 'follow_up', text: `$ ${command}` });
    },
  });
  const log = runFiles(runDir(app.repo.lazyDir, run.id)).log;
  const ran = await shell(command, run.worktree, (chunk) => {
    appendFileSync(log, chunk);
    onOutput?.(chunk);
  });
  const notes: string[] = [];
  const { review, risks } = await finishWork(run, (m) => notes.push(m));
  const outcome = commandOutcome(run, command, ran, review, risks);
  writeOutcome(app.repo.lazyDir, outcome);
  await recordOutcome(app.store, run, outcome);
  clearActive(app.repo.lazyDir, id, run.id);
  return { task: await app.store.view(id), run };
}

interface Ran {
  code: number | null;
  signal: string | null;
  output: string;
}

/** Runs the line with sh in `cwd`, stdout and stderr together (the end of them kept). */
function shell(command: string, cwd: string, onChunk: (s: string) => void): Promise<Ran> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn('sh', ['-c', command], { cwd, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    const take = (b: Buffer) => {
      const s = b.toString('utf8');
      output = (output + s).slice(-64 * 1024);
      onChunk(s);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (e) => resolve({ code: null, signal: null, output: `${output}${e.message}\n` }));
    child.on('close', (code, signal) => resolve({ code, signal, output }));
  });
}

function commandOutcome(
  run: RunRecord,
  command: string,
  ran: Ran,
  review: Outcome['review'],
  risks: string[] | undefined,
): Outcome {
  const tail = ran.output
    .replace(/\n$/, '')
    .split('\n')
    .slice(-TAIL_LINES)
    .map(sanitizeLine)
    .join('\n')
    .slice(-TAIL_CHARS);
  const ended = ran.code === null ? `was ended by ${ran.signal ?? 'an error'}` : `exited ${ran.code}`;
  const summary = `\`${sanitizeLine(command)}\` ${ended}${tail ? `\n\n${tail}` : ''}`;
  return {
    run: run.id,
    task: run.task,
    kind: ran.code === 0 ? 'completed' : 'failed',
    ended_at: nowIso(),
    attempts: 1,
    summary,
    commands: [{ command, exit_code: ran.code, output: tail }],
    // A shell command spends no tokens: known to cost nothing, so `lazy usage` never counts it unpriced.
    cost_usd: 0,
    ...(ran.code === 0 ? {} : { failure: { class: 'unknown' as const, reason: summary } }),
    ...(risks ? { risks } : {}),
    review,
  };
}
