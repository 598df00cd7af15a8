// The MCP server's rows: starting `lazy mcp` until its tools are listed, against `node -e 0`;
// and one lazy_show call to a running server, against a `lazy show` process of the same task.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LAZY, REPS, env, lazy, median, row, seededRepo, timed, work } from './bench-lib.mjs';

async function medianAsync(f, reps = REPS) {
  const xs = [];
  for (let i = 0; i < reps; i++) xs.push(await f(i));
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)];
}

async function connect(dir) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [LAZY, 'mcp'], cwd: dir, env }));
  return client;
}

export async function mcpBench() {
  const dir = seededRepo('mcp', 1000);
  lazy(['list'], dir);
  const id = lazy(['list', '--json'], dir).match(/"id": "([0-9a-z]{8})"/)[1];
  const nodeMs = median(() => timed(process.execPath, ['-e', '0'], work));
  const startMs = await medianAsync(async () => {
    const t = performance.now();
    const client = await connect(dir);
    await client.listTools();
    const ms = performance.now() - t;
    await client.close();
    return ms;
  });
  row('lazy mcp: start, initialize, tools/list', startMs, 'node -e 0', nodeMs, '');
  const client = await connect(dir);
  const callMs = await medianAsync(async () => {
    const t = performance.now();
    const r = await client.callTool({ name: 'lazy_show', arguments: { id } });
    if (r.isError) throw new Error(r.content[0].text);
    return performance.now() - t;
  });
  await client.close();
  const showMs = median(() => timed(process.execPath, [LAZY, 'show', id, '--json'], dir));
  row('lazy mcp: one lazy_show call (1000 tasks)', callMs, 'lazy show --json process', showMs, '');
}
