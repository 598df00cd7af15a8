import t from 'tap';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { api, type Call } from '../../lib/ui/server/api.js';
import type { Changes } from '../../lib/ui/server/events.js';
import { cli, LAZY, sandbox } from '../helpers/env.js';
import { recordingIo } from '../helpers/inproc.js';

// GET /api/board in this process (lib/ui/server/api.ts): a board whose page went away while it was being made stops
// there, answering nothing, instead of making the rest for a closed connection (the browser's side is in
// browser.test.ts: the page ends its queries when the person leaves or a newer refresh replaces them).

function boardCall(dir: string, env: NodeJS.ProcessEnv, signal: AbortSignal) {
  const sent: string[] = [];
  const res = {
    headersSent: false,
    writeHead: () => res,
    end: (body?: string) => void sent.push(String(body ?? '')),
  };
  const io = recordingIo({ env, cliPath: LAZY, json: true, out: () => {}, err: () => {} });
  const c: Call = {
    site: { io, cwd: dir, surface: 'lazy ui' },
    req: { method: 'GET' } as IncomingMessage,
    res: res as unknown as ServerResponse,
    url: new URL('http://127.0.0.1/api/board'),
    signal,
    changes: {} as Changes,
  };
  return { c, sent };
}

t.test('a board whose page went away stops, and answers nothing', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const id = await cli(sb).create('watch the board', '--accept', 'it shows');

  const live = boardCall(sb.dir, sb.env, new AbortController().signal);
  t.equal(await api(live.c), true);
  t.same(
    JSON.parse(live.sent[0]!).backlog.map((r: { id: string }) => r.id),
    [id],
    'with its page there, the board is made and sent',
  );

  const gone = new AbortController();
  const left = boardCall(sb.dir, sb.env, gone.signal);
  const made = api(left.c);
  gone.abort(); // the connection closes while the board is under way (nothing of it has run past its first await)
  await t.rejects(made, { code: 'aborted' }, 'it stops at its next step');
  t.same(left.sent, [], 'and sends nothing');
});
