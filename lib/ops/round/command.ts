import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { writeFileAtomicSync } from '../../core/fsutil.js';
import { identityOf, signalGroup } from '../../core/proc.js';
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
  const files = runFiles(runDir(app.repo.lazyDir, run.id));
  const ran = await shell(
    { command, cwd: run.worktree, run: run.id, agentFile: files.agent, onSignal: app.io.onSignal },
    (chunk) => {
      appendFileSync(files.log, chunk);
      onOutput?.(chunk);
    },
  );
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

interface Shell {
  command: string;
  cwd: string;
  run: string;
  /** Where the command's identity is recorded, as an agent's is: `lazy stop` ends its process group from there. */
  agentFile: string;
  onSignal: App['io']['onSignal'];
}

/**
 * Runs the line with sh in `cwd`, stdout and stderr together (the end of them kept). In a process group of its own,
 * recorded like an agent's, so `lazy stop` from another terminal ends it (and what it started) as it ends an agent;
 * Ctrl-C and SIGTERM here are passed on to that group, and this process stays to record how it ended.
 */
function shell(s: Shell, onChunk: (s: string) => void): Promise<Ran> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn('sh', ['-c', s.command], {
      cwd: s.cwd,
      env: { ...env(), LAZY_RUN: s.run },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    if (child.pid) writeFileAtomicSync(s.agentFile, JSON.stringify({ ...identityOf(child.pid), run: s.run }));
    const off = s.onSignal((sig) => child.pid && signalGroup(child.pid, sig));
    // One decoder for the stream: a character split across two chunks is not garbled.
    const decoder = new StringDecoder('utf8');
    const take = (b: Buffer) => {
      const text = decoder.write(b);
      if (!text) return;
      output = (output + text).slice(-64 * 1024);
      onChunk(text);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const done = (r: Ran) => {
      off();
      const rest = decoder.end();
      if (rest) onChunk(rest);
      resolve({ ...r, output: (r.output + rest).slice(-64 * 1024) });
    };
    child.on('error', (e) => done({ code: null, signal: null, output: `${output}${e.message}\n` }));
    child.on('close', (code, signal) => done({ code, signal, output }));
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
