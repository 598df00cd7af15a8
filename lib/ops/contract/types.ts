// An operation's contract: its command's name and arguments, declared once. bin/ builds the yargs command from
// it (bin/contract.ts) and lib/mcp/ the builder tool's inputSchema (lib/mcp/schema.ts), so a flag added here is on
// both surfaces; test/mcp/contract.test.ts holds each surface to it. Data only: the command parser loads this
// module on every start, and no operation's code with it.

/** How an argument looks to an MCP client, where it differs from the CLI's. */
export interface ToolArg {
  /** snake_case; default: the CLI's name with `-` as `_` (delete-branch → delete_branch). */
  name?: string;
  /** Default: the CLI's describe. */
  description?: string;
  /** Default: 'array' for an array, else the CLI's type ('string' for a choice). */
  type?: 'string' | 'number' | 'boolean' | 'array';
  /** Default: a required positional is required. A text the CLI reads from -m, stdin or the editor is required here. */
  required?: boolean;
}

export interface ArgContract {
  /** The CLI's name: the flag without dashes (kebab-case), or the positional's name in the usage line. */
  name: string;
  /** A positional argument: `<id>` when required, `[remote]` when not, `<ids..>` when an array. */
  positional?: true;
  required?: true;
  /** Absent for a choice yargs lists without a type (--sort). */
  type?: 'string' | 'number' | 'boolean';
  array?: true;
  choices?: readonly string[];
  /** Its short name (-m). */
  alias?: string;
  default?: number;
  /** An option it cannot be given with (--local, --user). */
  conflicts?: string;
  describe: string;
  /** The builder tool's argument, where it differs from the CLI's. */
  tool?: ToolArg;
  /** The tool has no such argument, and why (a terminal's concern, say). */
  cliOnly?: string;
}

export interface CommandContract {
  name: string;
  aliases?: readonly string[];
  /** Its line in `lazy --help`; false for a hidden command. */
  describe: string | false;
  /** Positionals first, then the options, in the order help lists them. */
  args: readonly ArgContract[];
  /** false: the operation reconciles after its own writes (queue and its kin), on either surface. */
  reconcile?: false;
  /** The builder tool lazy_<name> that serves this command over MCP (lib/mcp/builder.ts), if any. */
  tool?: {
    description: string;
    /** Its arguments' order in tools/list, where it is not the CLI's (by tool name). */
    order?: readonly string[];
  };
}

/** An argument's name in the tool: the declared one, else the CLI's in snake_case. */
export const toolName = (a: ArgContract) => a.tool?.name ?? a.name.replace(/-/g, '_');

export const ID_TEXT = 'task id or unique prefix (4+ characters)';

/** The task a command acts on: `<id>`, described for the command's help; the tool's description is the same for all. */
export const id = (describe: string) =>
  ({
    name: 'id',
    positional: true,
    required: true,
    type: 'string',
    describe,
    tool: { description: ID_TEXT },
  }) as const satisfies ArgContract;

/** -m TEXT: on the CLI it may come from stdin or the editor instead, so only the tool requires it. */
export const message = <const T extends Omit<ToolArg, 'required'>>(describe: string, tool?: T) =>
  ({
    name: 'message',
    alias: 'm',
    type: 'string',
    describe,
    tool: { required: true, ...(tool as T) },
  }) as const satisfies ArgContract;

export const follow = (describe = "stream the turn's output until it ends") =>
  ({
    name: 'follow',
    alias: 'f',
    type: 'boolean',
    describe,
    cliOnly: 'it streams to a terminal; a tool call returns once the turn runs (lazy_wait waits)',
  }) as const satisfies ArgContract;

/** accept's and unblock's protected-file decisions; `revertWhere` says where a revert happens. */
export const decisionArgs = (revertWhere: string) =>
  [
    {
      name: 'approve-file',
      type: 'string',
      array: true,
      describe: 'keep the change to a protected file',
      tool: { name: 'approve_files', description: 'keep the change to these protected files' },
    },
    {
      name: 'revert-file',
      type: 'string',
      array: true,
      describe: `restore a protected file ${revertWhere}`,
      tool: { name: 'revert_files', description: 'restore these protected files' },
    },
    { name: 'approve-all', type: 'boolean', describe: 'keep the change to every pending protected file' },
    { name: 'revert-all', type: 'boolean', describe: 'restore every pending protected file' },
  ] as const satisfies ArgContract[];

// What a handler receives, typed from the contract: a flag renamed there fails to compile where it is read.

/** kebab-case as yargs hands a flag to the handler (--delete-branch → deleteBranch), and as the tool names it. */
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type Snake<S extends string> = S extends `${infer H}-${infer T}` ? `${H}_${Snake<T>}` : S;

type Args<C extends { args: readonly ArgContract[] }> = C['args'][number];
type Scalar<A> = A extends { type: 'number' }
  ? number
  : A extends { type: 'boolean' }
    ? boolean
    : A extends { choices: readonly (infer V)[] }
      ? V
      : string;
type Always<A> = A extends { positional: true; required: true } ? true : false;

/** A command's arguments as yargs parses them: each under its camelCase name, a required positional always there. */
export type CliArgs<C extends { args: readonly ArgContract[] }> = {
  [A in Args<C> as Always<A> extends true ? Camel<A['name']> : never]: A extends { array: true }
    ? Scalar<A>[]
    : Scalar<A>;
} & {
  [A in Args<C> as Always<A> extends true ? never : Camel<A['name']>]?: A extends { array: true }
    ? Scalar<A>[]
    : Scalar<A>;
};

type ToolNameOf<A extends ArgContract> = A extends { tool: { name: infer N extends string } } ? N : Snake<A['name']>;
type ToolType<A> = A extends { tool: { type: infer T } }
  ? T
  : A extends { array: true }
    ? 'array'
    : A extends { type: infer T }
      ? T
      : 'string';
type ToolValue<A> =
  ToolType<A> extends 'array'
    ? string[]
    : ToolType<A> extends 'number'
      ? number
      : ToolType<A> extends 'boolean'
        ? boolean
        : string;
type Needed<A> = A extends { tool: { required: infer R } } ? R : Always<A>;
type OnTool<C extends { args: readonly ArgContract[] }> = Exclude<Args<C>, { cliOnly: string }>;

/** A builder tool's arguments, checked against its schema (lib/mcp/schema.ts): each under its tool name. */
export type ToolArgs<C extends { args: readonly ArgContract[] }> = {
  [A in OnTool<C> as Needed<A> extends true ? ToolNameOf<A> : never]: ToolValue<A>;
} & {
  [A in OnTool<C> as Needed<A> extends true ? never : ToolNameOf<A>]?: ToolValue<A>;
};
