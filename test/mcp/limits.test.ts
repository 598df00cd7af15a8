import t from 'tap';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { LAZY, sandbox } from '../helpers/env.js';
import { recordingIo } from '../helpers/inproc.js';
import { mcpInproc } from '../helpers/mcp.js';
import { LineLimit, MCP_MAX_MESSAGE_BYTES, idOf, type Oversize } from '../../lib/mcp/lines.js';
import { serveMcp } from '../../lib/mcp/server.js';

// Issue 27, oversized MCP messages: a line over the limit is answered with a JSON-RPC error naming
// the limit and the server keeps serving, its memory bounded (the SDK alone copied a growing buffer
// per chunk, then closed at 10 MiB and the server ended with exit 0, saying nothing); a transport
// that cannot go on is said on stderr, with an exit that is not 0.

const MiB = 1024 * 1024;

/** Feeds `chunks` through a LineLimit of `limit` bytes: what it passed on, and what it refused. */
function through(limit: number, chunks: (string | Buffer)[]) {
  const passed: string[] = [];
  const refused: Oversize[] = [];
  const l = new LineLimit(limit, (o) => refused.push(o));
  l.on('data', (b: Buffer) => passed.push(b.toString()));
  for (const c of chunks) l.write(c);
  l.end();
  return { passed, refused, l };
}

t.test('lines within the limit pass whole, one chunk each; longer ones are refused with their id', async (t) => {
  const a = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
  // The SDK client's order (the id last), then the id first.
  const last = `{"method":"tools/call","params":{"arguments":{"goal":"${'x'.repeat(300)}"}},"jsonrpc":"2.0","id":7}`;
  const first = `{"jsonrpc":"2.0","id":"abc","method":"x","params":{"p":"${'y'.repeat(200)}"}}`;
  const { passed, refused } = through(100, [
    a.slice(0, 10),
    a.slice(10) + '\n' + last.slice(0, 50),
    `${last.slice(50)}\n${first}\n`,
    `${'z'.repeat(100)}\n`,
  ]);
  t.same(passed, [`${a}\n`, `${'z'.repeat(100)}\n`], 'a line at the limit passes; each line is one chunk');
  t.same(
    refused.map((o) => [o.id, o.bytes, o.limit]),
    [
      [7, last.length, 100],
      ['abc', first.length, 100],
    ],
    'the over-limit lines are refused with the ids at their end and at their start',
  );
});

t.test("a dropped line's id is read from its first and last bytes only", async (t) => {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const start = '{"jsonrpc":"2.0","method":"tools/call","params":{"goal":"';
  const end = '"},"id":42}';
  const chunks = [Buffer.from(start), ...Array<Buffer>(160).fill(chunk)];
  const { refused } = through(1024, [...chunks, `${end}\n`]);
  t.same(
    refused.map((o) => [o.id, o.bytes]),
    [[42, start.length + 10 * MiB + end.length]],
    'the 10 MiB line is refused as request 42',
  );

  t.equal(
    idOf('{"jsonrpc":"2.0","method":"x","params":{"id":5,"goal":"…', '…"}}'),
    undefined,
    "a nested id is not the request's",
  );
  t.equal(
    idOf('{"method":"notifications/x","params":{"a":"…', '…"},"jsonrpc":"2.0"}'),
    undefined,
    'a notification has none',
  );
  t.equal(idOf('{"id":"q\\"1","method":"x"…', ''), 'q"1', 'a string id is read as JSON');
});

t.test('the server answers an over-limit line with a JSON-RPC error and serves the next, memory bounded', async (t) => {
  const sb = sandbox('lazy-mcp-limits');
  t.teardown(sb.cleanup);
  const p = spawn(process.execPath, [LAZY, 'mcp'], { cwd: sb.dir, env: sb.env, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => p.once('exit', (code) => r(code)));
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  const replies = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  /** The reply to request `id`, as soon as the server has written it (stdout is looked at as it comes). */
  const reply = (id: number) =>
    new Promise<any>((res, rej) => {
      const look = () => {
        const r = replies().find((m) => m.id === id);
        if (!r) return false;
        p.stdout.off('data', look);
        res(r);
        return true;
      };
      p.stdout.on('data', look);
      p.stdout.once('close', () => look() || rej(new Error(`the server ended before answering ${id}: ${err}`)));
      look();
    });
  const send = (s: string) => new Promise<void>((res) => p.stdin.write(s, () => res()));
  await send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }) + '\n',
  );
  await reply(1);
  await send('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  // The SDK client's order (the id last), 64 MiB; then the id first, 8 MiB.
  const goal = 'x'.repeat(64 * MiB);
  await send(
    `{"method":"tools/call","params":{"name":"lazy_create","arguments":{"goal":"${goal}"}},"jsonrpc":"2.0","id":2}\n`,
  );
  await send(
    `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lazy_create","arguments":{"goal":"${goal.slice(0, 8 * MiB)}"}}}\n`,
  );
  await send('{"jsonrpc":"2.0","id":4,"method":"tools/list"}\n');
  for (const id of [2, 3]) {
    const r = await reply(id);
    t.equal(r.error?.code, -32600, `request ${id} is an invalid request`);
    t.match(r.error?.message, `over the ${MCP_MAX_MESSAGE_BYTES}-byte limit`, 'naming the limit');
  }
  t.ok((await reply(4)).result.tools.length, 'the next request is served');
  t.match(
    err,
    /refused a 67108\d+-byte message \(request 2\): over the 4194304-byte limit/,
    'stderr says what was refused',
  );
  const peak = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'))?.[1]) / 1024;
  t.ok(peak < 200, `the server's peak memory stayed bounded (${peak.toFixed(0)} MiB after a 64 MiB line)`);
  p.stdin.end();
  t.equal(await exited, 0, 'and it ends as a client going away ends it');
  t.same(
    replies().filter((m) => m.id === undefined),
    [],
    'every reply names its request',
  );
});

t.test('over the SDK client: a call too big to read fails naming the limit, and nothing is written', async (t) => {
  const sb = sandbox('lazy-mcp-limits');
  const mcp = await mcpInproc(sb);
  t.teardown(async () => {
    await mcp.close();
    await sb.cleanup();
  });
  await t.rejects(mcp.call('lazy_create', { goal: 'word '.repeat(MiB) }), {
    code: -32600,
    message: new RegExp(`over the ${MCP_MAX_MESSAGE_BYTES}-byte limit`),
  });
  t.same((await mcp.ok('lazy_list')).items, [], 'no task was created, and the server still serves');
  t.match(mcp.stderr(), /refused a \d+-byte message \(request \d+\)/);
});

t.test('a transport that cannot go on is said on stderr, with an exit that is not 0', async (t) => {
  const sb = sandbox('lazy-mcp-limits');
  t.teardown(sb.cleanup);
  let stderr = '';
  const io = recordingIo({ env: sb.env, cliPath: LAZY, json: false, out: () => {}, err: (s) => void (stderr += s) });
  const input = new PassThrough();
  const served = serveMcp({ io, cwd: sb.dir, input, output: new PassThrough(), version: 'test' });
  await new Promise((r) => setImmediate(r));
  input.destroy(new Error('EIO: i/o error, read'));
  t.equal(await served, 1, 'exit 1');
  t.match(stderr, /the connection to the client broke: cannot read from the client: EIO: i\/o error, read/);
});
