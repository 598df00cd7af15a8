import type { IncomingMessage, ServerResponse } from 'node:http';
import { aborted, LazyError, usageError } from '../../core/errors.js';
import { errorJson } from '../../output/emit.js';
import { nearest } from '../../core/nearest.js';
import { taskDiff } from '../../ops/diff.js';
import { taskLog } from '../../ops/log.js';
import { inboxFrom } from '../../ops/inbox.js';
import { listFrom, readListing, type ListedTask, type ListInput } from '../../ops/list.js';
import { builderTools } from '../../mcp/builder.js';
import { asCommand, callTool, type CallSite } from '../../mcp/call.js';
import { servedOnly } from '../../mcp/port.js';
import type { Tool } from '../../mcp/schema.js';
import { readJsonBody, sendJson } from './reply.js';
import { streamOutput, type Changes } from './events.js';

// The HTTP API the page uses: every answer is what the CLI's --json prints, every action the builder tool of
// the same name (lib/mcp/builder.ts), so an action here runs the CLI's operation with its options, codes and
// messages, and is recorded as a person's (actor human).

const tool = (name: string) => builderTools.find((t) => t.name === `lazy_${name}`)!;

/**
 * What the page reads through tools of its own (GET), what only waits (a person watches instead), and run: a web
 * page is no place to start arbitrary commands on this machine (lazy run on a terminal, lazy_run from a builder).
 */
const NOT_ACTIONS = new Set(['list', 'show', 'inbox', 'usage', 'create', 'wait', 'run']);

/** The actions a page may take: a button for each, when the task lists it. */
export const UI_ACTIONS: ReadonlySet<string> = new Set(
  builderTools.map((t) => t.name.replace(/^lazy_/, '')).filter((a) => !NOT_ACTIONS.has(a)),
);

/** A document as this surface serves it: a task's actions are only those the page can take. */
const served = (doc: unknown) => servedOnly(JSON.parse(JSON.stringify(doc ?? null)) as unknown, UI_ACTIONS);

export interface Call {
  site: CallSite;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The page went away: a call it started (an ask's wait) ends. */
  signal: AbortSignal;
  changes: Changes;
}

const HUMAN = 'human' as const;

/** A query string as a tool's arguments, typed by its schema: `tag=a&tag=b` or `status=a,b` for a list. */
function queryArgs(t: Tool, q: URLSearchParams): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const key of new Set(q.keys())) {
    const all = q.getAll(key);
    const type = t.inputSchema.properties[key]?.type;
    if (type === 'array') args[key] = all.flatMap((v) => v.split(',')).filter(Boolean);
    else if (type === 'boolean') args[key] = !['0', 'false', 'no'].includes(all.at(-1)!.toLowerCase());
    else if (type === 'number') args[key] = Number(all.at(-1));
    else args[key] = all.at(-1);
  }
  return args;
}

const read = async (c: Call, name: string, args: Record<string, unknown>) =>
  served((await callTool(c.site, tool(name), args, { actor: HUMAN, signal: c.signal })).value);

/** The backlog the board shows, newest change first: a longer one is for `lazy list` and the filters. */
const BACKLOG_SHOWN = 100;

/**
 * The board in one pass of one app and one read of the listing index: the inbox, then working, queued (in the order
 * a worker picks them), backlog and recently finished tasks, each as `lazy list --json` rows (what inbox and list
 * would answer, each selecting from the read on its own copies), all narrowed by the same tags and text.
 */
async function board(c: Call) {
  const q = c.url.searchParams;
  const filter = {
    tag: q
      .getAll('tag')
      .flatMap((t) => t.split(','))
      .filter(Boolean),
    search: q.get('search') ?? undefined,
  };
  // A page that went away (the person left the board, or a newer refresh replaced it) is shown nothing: the board
  // stops at the next step instead of making the rest for a closed connection.
  const wanted = () => {
    if (c.signal.aborted) throw aborted('the page went away before its board was made');
  };
  return asCommand(c.site, { actor: HUMAN, signal: c.signal }, async (app) => {
    wanted();
    const read = await readListing(app);
    wanted();
    const needs = await inboxFrom(app, filter, read);
    const listed = new Set(needs.map((i) => i.id));
    const open = (rows: ListedTask[]) => rows.filter((r) => !listed.has(r.id));
    const list = (input: ListInput, also?: Parameters<typeof listFrom>[3]) => {
      wanted();
      return listFrom(app, { ...filter, ...input }, read, also);
    };
    return served({
      inbox: needs,
      working: open(await list({ status: ['working', 'merging', 'conflict'] })),
      queued: open(await list({ queued: true })),
      // Only the rows shown are situated and get their actions: the cut comes first.
      backlog: await list({ status: ['backlog'], sort: 'updated', limit: BACKLOG_SHOWN }, (r) => !r.schedule.queued),
      finished: await list({ status: ['complete', 'abandoned'], sort: 'updated', limit: 20 }),
    });
  });
}

/** POST /api/tasks/<id>/<action>: the action's builder tool with the body as its options and the task as its id. */
async function act(c: Call, id: string, action: string) {
  if (!UI_ACTIONS.has(action)) {
    const near = nearest(action, [...UI_ACTIONS]);
    throw usageError(`unknown action '${action}'${near ? `; the nearest is '${near}'` : ''}`, {
      action,
      ...(near ? { nearest: near } : {}),
    });
  }
  const t = tool(action);
  const body = await readJsonBody(c.req);
  // A follow-up's `command` is a shell command run on this machine: a web page starts none (as it offers no run).
  if (action === 'follow_up' && 'command' in body)
    throw usageError(
      'follow_up: a command round is started on a terminal (lazy follow-up --command), not from the page',
      {
        argument: 'command',
      },
    );
  for (const k of ['id', 'ids'])
    if (k in body) throw usageError(`the task is named by the address, not by '${k}' in the body`, { argument: k });
  const args = 'ids' in t.inputSchema.properties ? { ...body, ids: [id] } : { ...body, id };
  const r = await inCommandWords(action, () => callTool(c.site, t, args, { actor: HUMAN, signal: c.signal }));
  // queue and its kin answer one `{task}` per id, an array, as `lazy queue <id> --json` prints it.
  return served(r.value);
}

/** A tool's usage error names the tool (`lazy_close: unknown argument …`); the page's person knows the action. */
async function inCommandWords<T>(action: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    const prefix = `lazy_${action.replace(/-/g, '_')}: `;
    if (e instanceof LazyError && e.message.startsWith(prefix))
      throw e.reworded(`${action}: ${e.message.slice(prefix.length)}`);
    throw e;
  }
}

/** A path segment, decoded; a malformed escape is the caller's mistake (400), not ours. */
function segment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw usageError(`'${s}' is not a valid path segment`);
  }
}

type Route = (c: Call, m: RegExpMatchArray) => Promise<unknown>;

const ROUTES: [method: string, path: RegExp, route: Route | 'stream'][] = [
  ['GET', /^\/api\/board$/, (c) => board(c)],
  ['GET', /^\/api\/tasks$/, (c) => read(c, 'list', queryArgs(tool('list'), c.url.searchParams))],
  ['GET', /^\/api\/inbox$/, (c) => read(c, 'inbox', queryArgs(tool('inbox'), c.url.searchParams))],
  ['GET', /^\/api\/usage$/, (c) => read(c, 'usage', queryArgs(tool('usage'), c.url.searchParams))],
  ['GET', /^\/api\/tasks\/([^/]+)$/, (c, m) => read(c, 'show', { id: m[1] })],
  [
    'GET',
    /^\/api\/tasks\/([^/]+)\/diff$/,
    (c, m) => asCommand(c.site, { actor: HUMAN, signal: c.signal }, (app) => taskDiff(app, m[1]!, false)),
  ],
  [
    'GET',
    /^\/api\/tasks\/([^/]+)\/log$/,
    (c, m) => asCommand(c.site, { actor: HUMAN, signal: c.signal }, (app) => taskLog(app, m[1]!)),
  ],
  ['GET', /^\/api\/tasks\/([^/]+)\/output$/, 'stream'],
  ['GET', /^\/api\/events$/, 'stream'],
  [
    'POST',
    /^\/api\/tasks$/,
    async (c) =>
      served(
        (await callTool(c.site, tool('create'), await readJsonBody(c.req), { actor: HUMAN, signal: c.signal })).value,
      ),
  ],
  ['POST', /^\/api\/tasks\/([^/]+)\/([a-z_-]+)$/, (c, m) => act(c, m[1]!, m[2]!)],
];

/** Serves one /api/ request; false when no route has its path. */
export async function api(c: Call): Promise<boolean> {
  const path = c.url.pathname;
  const found = ROUTES.filter(([, p]) => p.test(path));
  if (!found.length) return false;
  const hit = found.find(([m]) => m === c.req.method);
  if (!hit) {
    const allowed = found.map(([m]) => m).join(', ');
    const e = usageError(`${c.req.method} is not served at ${path} (use ${allowed})`, { allowed });
    sendJson(c.res, errorJson(e), 405, { allow: allowed });
    return true;
  }
  const [, pattern, route] = hit;
  const m = path.match(pattern)!.map((s) => (s === undefined ? s : segment(s))) as RegExpMatchArray;
  if (route !== 'stream') sendJson(c.res, await route(c, m));
  else if (path === '/api/events') c.changes.listen(c.res);
  else await streamOutput(c.site, m[1]!, c.res, c.changes);
  return true;
}
