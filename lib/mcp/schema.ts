import { usageError } from '../core/errors.js';
import type { App } from '../ops/app.js';
import type { Reply } from './port.js';
import { toolName, type ArgContract, type CommandContract, type ToolArgs } from '../ops/contract/index.js';

// Tool input schemas are plain JSON Schema: what tools/list announces, what docs/mcp.md documents
// (a test holds the two together), and what a call's arguments are checked against here, so a
// bad argument is the CLI's usage error (exit 2's code) and not a protocol failure.

export interface Prop {
  type: 'string' | 'number' | 'boolean' | 'array';
  description: string;
  items?: { type: 'string' } | ObjectSchema;
}

export interface ObjectSchema {
  type: 'object';
  properties: Record<string, Prop | { type: 'string' | 'integer' }>;
  required: string[];
  additionalProperties: false;
}

export const str = (description: string): Prop => ({ type: 'string', description });
export const num = (description: string): Prop => ({ type: 'number', description });
export const bool = (description: string): Prop => ({ type: 'boolean', description });
export const strs = (description: string): Prop => ({ type: 'array', items: { type: 'string' }, description });

export const object = (properties: ObjectSchema['properties'], required: string[] = []): ObjectSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** A contract's argument as the tool takes it: its type and description as the tool declares them, else the CLI's. */
function propOf(a: ArgContract): Prop {
  const type = a.tool?.type ?? (a.array ? 'array' : (a.type ?? 'string'));
  const description = a.tool?.description ?? a.describe;
  return type === 'array' ? strs(description) : { type, description };
}

/** A builder tool's inputSchema, generated from its command's contract (lib/ops/contract/): what bin/ parses. */
export function inputSchemaOf(c: CommandContract): ObjectSchema {
  const args = c.args.filter((a) => a.cliOnly === undefined);
  const order = c.tool?.order;
  if (order) args.sort((x, y) => order.indexOf(toolName(x)) - order.indexOf(toolName(y)));
  const required = args.filter((a) => a.tool?.required ?? (a.positional && a.required)).map(toolName);
  return object(Object.fromEntries(args.map((a) => [toolName(a), propOf(a)])), required);
}

export type Args = Record<string, unknown>;

/** What a tool call runs with: a freshly opened app (its actor bound), and the call's abort signal. */
export interface ToolContext {
  app: App;
  signal: AbortSignal;
}

export interface Tool {
  name: string;
  description: string;
  inputSchema: ObjectSchema;
  /** false: the operation reconciles after its own writes, as its CLI command does (queue and its kin). */
  reconcile?: false;
  run(ctx: ToolContext, args: Args): Promise<Reply>;
}

/** The builder tool lazy_<command> (follow-up: lazy_follow_up): its description and schema from the command's contract, its run its own. */
export const toolOf = <C extends CommandContract>(
  c: C,
  run: (ctx: ToolContext, args: ToolArgs<C>) => Promise<Reply>,
): Tool => ({
  name: `lazy_${c.name.replace(/-/g, '_')}`,
  description: c.tool!.description,
  inputSchema: inputSchemaOf(c),
  ...(c.reconcile === false ? { reconcile: false as const } : {}),
  // checkArgs has held the arguments to this very schema before run is called.
  run: run as Tool['run'],
});

const typeOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/** Checks a call's arguments against the tool's schema: required ones present, no unknown ones, types right. */
export function checkArgs(tool: Tool, raw: unknown): Args {
  const args = (raw ?? {}) as Args;
  if (typeOf(args) !== 'object') throw usageError(`${tool.name}: arguments must be an object`);
  const { properties, required } = tool.inputSchema;
  for (const [k, v] of Object.entries(args)) {
    const p = properties[k];
    if (!p) throw usageError(`${tool.name}: unknown argument '${k}' (it takes ${Object.keys(properties).join(', ')})`);
    if (v === undefined) continue;
    const want = p.type === 'integer' ? 'number' : p.type;
    const items = 'items' in p ? p.items : undefined;
    const itemsOk =
      want !== 'array' || items?.type !== 'string' || (v as unknown[]).every((x) => typeof x === 'string');
    if (typeOf(v) !== want || !itemsOk)
      throw usageError(`${tool.name}: argument '${k}' must be ${want === 'array' ? 'an array' : `a ${want}`}`, {
        argument: k,
      });
  }
  // As with the CLI's -m, a required text that is blank is missing.
  for (const k of required)
    if (args[k] === undefined || (typeof args[k] === 'string' && !args[k].trim()))
      throw usageError(`${tool.name}: argument '${k}' is required`, { argument: k });
  return args;
}

/** An optional argument of a type checkArgs has already checked. */
export const opt = <T>(args: Args, k: string) => args[k] as T | undefined;
export const req = <T>(args: Args, k: string) => args[k] as T;
