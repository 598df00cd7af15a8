import t from 'tap';
import { manual } from '../helpers/manual.js';
import { agentSandbox } from '../helpers/agent.js';
import { fakeEnv, mcpInproc } from '../helpers/mcp.js';

// The MCP tables of docs/mcp.md are the tools' documentation: they must name what tools/list announces,
// every argument, and which are required (in bold), in both modes.

interface Documented {
  name: string;
  args: string[];
  required: string[];
}

/** The rows of the table under `heading` in docs/mcp.md: tool, its arguments, the bold ones. */
function documented(heading: string): Documented[] {
  const text = manual('docs/mcp.md');
  const at = text.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`docs/mcp.md has no ${heading}`);
  const rows = text
    .slice(at + heading.length + 2)
    .split('\n\n')
    .map((block) => block.trim())
    .find((block) => block.startsWith('|'))!
    .split('\n')
    .slice(2);
  return rows.map((row) => {
    const [, tool, args] = row.split('|').map((c) => c.trim());
    const names = [...args!.matchAll(/(\*\*)?`([a-z_]+)`/g)];
    return {
      name: /^`(lazy_[a-z_]+)`$/.exec(tool!)![1]!,
      args: names.map((m) => m[2]!).sort(),
      required: names
        .filter((m) => m[1])
        .map((m) => m[2]!)
        .sort(),
    };
  });
}

/** The decision arguments are listed once in the prose; a row that names them names all four. */
const DECISION_ARGS = ['approve_all', 'approve_files', 'revert_all', 'revert_files'];

const announced = (tools: { name: string; inputSchema: any }[]): Documented[] =>
  tools.map((x) => ({
    name: x.name,
    args: Object.keys(x.inputSchema.properties ?? {}).sort(),
    required: [...(x.inputSchema.required ?? [])].sort(),
  }));

t.test("docs/mcp.md's tool tables match tools/list in both modes", async (t) => {
  const box = await agentSandbox();
  Object.assign(box.sb.env, { FAKE_SLEEP_MS: '120000' });
  box.scenario('slow-succeed');
  const id = await box.l.create('the parent', '--accept', 'done');
  const run = (await box.l.json('start', id)).value.run.id;
  const builder = await mcpInproc(box.sb);
  const agent = await mcpInproc(box.sb, ['--run', run], fakeEnv(box.sb, 'slow-succeed'));
  t.teardown(async () => {
    await builder.close();
    await agent.close();
    await box.l('stop', id);
    await box.sb.cleanup();
  });
  for (const [heading, client] of [
    ['## Builder tools', builder],
    ['## Agent tools', agent],
  ] as const) {
    const listed = announced((await client.client.listTools()).tools);
    const docs = documented(heading);
    t.same(
      docs.map((d) => d.name),
      listed.map((d) => d.name),
      `${heading}: the same tools, in tools/list's order`,
    );
    for (const d of docs) {
      const l = listed.find((x) => x.name === d.name);
      t.same(d.required, l?.required, `${heading} ${d.name}: the required arguments`);
      const args = l?.args.filter((a) => !DECISION_ARGS.includes(a) || d.args.includes(a));
      t.same(d.args, args, `${heading} ${d.name}: every argument`);
    }
    t.ok(listed.length >= 9, `${listed.length} tools checked`);
  }
  // The check itself sees a difference.
  t.notSame(documented('## Agent tools')[0], { name: 'lazy_update_progress', args: ['message'], required: [] });
});
