import { spawn } from 'node:child_process';
import { randomId } from '../core/ids.js';
import { GIT_ENV } from '../core/git.js';
import { gitFailed } from '../core/errors.js';
import type { TaskDoc } from '../model/docs.js';
import { creationDraft, type Draft } from './draft.js';
import { entryName, TASK_FILE } from './layout.js';
import { writeDoc } from './validate.js';
import type { Store } from './store.js';
import { env } from '../core/env.js';
import { taskRef } from '../core/names.js';

// Creating many tasks at once (benchmarks, imports): the same documents and commit
// messages a `lazy create` writes, validated the same way, streamed through one
// `git fast-import` instead of one process per task.

export async function bulkCreate(
  store: Store,
  count: number,
  fields: (i: number) => Omit<TaskDoc, 'id' | 'clock' | 'created_at' | 'created_by'>,
  /** Adds turns to the new task's draft (the benchmark's recorded usage); they are written in the same commit. */
  more?: (d: Draft, i: number) => void,
  /** A task's own moment (ISO time) when it is not now: its documents and its commit carry it. */
  when?: (i: number) => string | undefined,
): Promise<string[]> {
  const { ctx: now, sig } = await store.ctx();
  const child = spawn('git', ['fast-import', '--quiet', '--done'], {
    cwd: store.repo.cwd,
    env: { ...env(), ...GIT_ENV },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<number>((res) => child.on('close', (c) => res(c ?? 1)));
  const off = Math.abs(sig.timezoneOffset);
  const two = (n: number) => String(n).padStart(2, '0');
  const tz = `${sig.timezoneOffset <= 0 ? '+' : '-'}${two(Math.floor(off / 60))}${two(off % 60)}`;
  const who = (at: string | undefined) =>
    `${sig.name} <${sig.email}> ${at ? Math.floor(Date.parse(at) / 1000) : sig.timestamp} ${tz}`;
  const data = (s: string) => `data ${Buffer.byteLength(s)}\n${s}\n`;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomId();
    const at = when?.(i);
    const draft = creationDraft(id, fields(i), at ? { ...now, now: at } : now);
    const ref = taskRef(id);
    more?.(draft, i);
    const changes = draft.changes.map((e) => {
      const file = `changelog/${entryName(e.clock, e.id)}`;
      return `M 100644 inline ${file}\n${data(writeDoc('statusChange', e, { ref, file }))}`;
    });
    const turns = draft.turns.map((e) => {
      const at = `turns/${entryName(e.clock, e.id)}`;
      return `M 100644 inline ${at}\n${data(writeDoc('turn', e, { ref, file: at }))}`;
    });
    const chunk =
      `commit ${ref}\ncommitter ${who(at)}\n${data(draft.commitMessage())}` +
      `M 100644 inline ${TASK_FILE}\n${data(writeDoc('task', draft.docs.task, { ref, file: TASK_FILE }))}` +
      `${changes.join('')}${turns.join('')}\n`;
    if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r));
    ids.push(id);
  }
  child.stdin.end('done\n');
  if ((await done) !== 0) throw gitFailed(`git fast-import failed: ${stderr.trim()}`);
  return ids;
}
