import { resolve } from 'node:path';
import { commandSpecs, globalSpec, valuedOptions } from './registry.js';
import { findSpec, positionalWords, type ArgSpec, type CommandSpec } from './spec.js';
import { STATUSES } from '../lib/model/status.js';

// Shell completion. The scripts (bin/shells.ts, printed by `lazy completion bash|zsh|fish`) hand
// the words typed so far to `lazy __complete -- <words…>`, which prints one candidate a line
// (`value<TAB>what it is`), or `:dirs` / `:files` for the shell to complete paths itself. Start-up
// is a feature: this answers from the command definitions and the listing index alone, never
// opening the store or reconciling.

type Candidate = [value: string, describe?: string];

/** Candidates for the last of `words` (the words after `lazy`; the last one is being typed, possibly ''). */
export async function complete(words: string[], cwd: string): Promise<string> {
  const typed = words.length ? words : [''];
  const cur = typed[typed.length - 1]!;
  const before = typed.slice(0, -1);
  const valued = valuedOptions(undefined);
  const dirAt = before.lastIndexOf('-C');
  const where = dirAt >= 0 && before[dirAt + 1] ? resolve(cwd, before[dirAt + 1]!) : cwd;
  const spec = findSpec(commandSpecs(), positionalWords(before, valued)[0]);
  const found = await candidates(spec, before, cur, where);
  if (typeof found === 'string') return `${found}\n`;
  return found
    .filter(([v]) => v.startsWith(cur))
    .map(([v, d]) => (d ? `${v}\t${oneLine(d)}` : v))
    .map((l) => `${l}\n`)
    .join('');
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

const flagOf = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`);

function optionNamed(spec: CommandSpec | undefined, word: string | undefined): ArgSpec | undefined {
  if (!word?.startsWith('-') || word.includes('=')) return undefined;
  const name = word.replace(/^-+/, '');
  return [...globalSpec().options, ...(spec?.options ?? [])].find((o) => o.name === name || o.aliases.includes(name));
}

async function candidates(
  spec: CommandSpec | undefined,
  before: string[],
  cur: string,
  cwd: string,
): Promise<Candidate[] | string> {
  const option = optionNamed(spec, before[before.length - 1]);
  if (option && option.type !== 'boolean') return valuesOf(option, cur, cwd);
  if (cur.startsWith('-')) return flags(spec);
  if (!spec) return commands();
  const words = positionalWords(before, valuedOptions(spec)).slice(1);
  const last = spec.positionals[spec.positionals.length - 1];
  const positional = spec.positionals[words.length] ?? (last?.variadic ? last : undefined);
  return positional ? valuesOf(positional, cur, cwd) : [];
}

function commands(): Candidate[] {
  const visible = commandSpecs().filter((s) => s.describe !== false);
  return visible.map((s): Candidate => [s.name, s.describe as string]);
}

function flags(spec: CommandSpec | undefined): Candidate[] {
  const opts = [...(spec?.options ?? []), ...globalSpec().options];
  return opts.flatMap((o) => [o.name, ...o.aliases].map((n): Candidate => [flagOf(n), o.describe]));
}

async function valuesOf(arg: ArgSpec, cur: string, cwd: string): Promise<Candidate[] | string> {
  if (arg.choices) return arg.choices.map((c): Candidate => [c]);
  if (arg.name === 'command') return commands();
  if (arg.name === 'C') return ':dirs';
  if (arg.name.endsWith('-file')) return ':files';
  if (arg.name === 'status') {
    // --status takes a comma-separated list: complete its last item.
    const head = cur.slice(0, cur.lastIndexOf(',') + 1);
    return STATUSES.map((s): Candidate => [head + s]);
  }
  if (arg.name === 'id' || arg.name === 'ids' || arg.name === 'parent') return taskIds(cwd, cur);
  return [];
}

/** Ids from the listing index and the archived ids' file (local files): no git process, no store, no reconcile. */
async function taskIds(cwd: string, cur: string): Promise<Candidate[]> {
  try {
    const { openRepo } = await import('../lib/core/repo.js');
    const { indexedIds } = await import('../lib/store/listing/ids.js');
    const { archivedIds } = await import('../lib/store/archive/ids.js');
    const { lazyDir } = await openRepo(cwd);
    const ids = new Set([...indexedIds(lazyDir, cur), ...archivedIds(lazyDir, cur)]);
    return [...ids].map((id): Candidate => [id]);
  } catch {
    return [];
  }
}
