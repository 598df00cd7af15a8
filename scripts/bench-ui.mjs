// lazy ui's row: the board of a 10,000-task repository as the page loads it (GET /api/board: the inbox, working,
// queued, backlog and recently finished tasks, all from one reconcile and the listing index), against a
// `lazy list --json` process on the same repository.
import { spawn } from 'node:child_process';
import { LAZY, REPS, env, lazy, median, row, seededRepo, timed } from './bench-lib.mjs';

async function medianAsync(f, reps = REPS) {
  const xs = [];
  for (let i = 0; i < reps; i++) xs.push(await f(i));
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)];
}

export async function uiBench(n = 10000) {
  const dir = seededRepo(`ui-${n}`, n);
  lazy(['list'], dir); // the listing index, as any first list builds it
  const listMs = median(() => timed(process.execPath, [LAZY, 'list', '--json'], dir));
  const ui = spawn(process.execPath, [LAZY, 'ui', '--port', '0'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const url = new URL(await new Promise((res) => ui.stdout.once('data', (d) => res(String(d).split('\n')[0]))));
    const headers = { cookie: `lazy_ui_${url.port}=${url.searchParams.get('token')}` };
    const board = async () => {
      const t = performance.now();
      const r = await fetch(`${url.origin}/api/board`, { headers });
      const doc = await r.json();
      if (!r.ok) throw new Error(`GET /api/board: ${r.status} ${JSON.stringify(doc)}`);
      return performance.now() - t;
    };
    await board(); // the server's first request loads its code
    row(`lazy ui: the board (${n} tasks)`, await medianAsync(board), 'lazy list --json process', listMs, '≤ 2');
  } finally {
    ui.kill('SIGINT');
  }
}
