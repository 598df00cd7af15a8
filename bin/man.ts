import { commandSpecs, globalSpec } from './registry.js';
import type { ArgSpec, CommandSpec } from './spec.js';

// The man pages (lazy.1, and git-lazy.1 for `git lazy --help`, which runs `man git-lazy`),
// written at build time (scripts/build.mjs) from the definitions the parser uses: the
// commands, their arguments and descriptions, and the exit codes of docs/commands.md's table.

export interface ManInput {
  /** lazy or git-lazy. */
  page: string;
  version: string;
  /** docs/commands.md's text: its exit-code table is the law EXIT STATUS repeats. */
  doc: string;
}

/** docs/commands.md's "Exit codes" table as [code, meaning] rows, Markdown marks dropped. */
export function exitCodes(doc: string): [string, string][] {
  const table = doc.slice(doc.indexOf('## Exit codes'));
  const rows = [...table.matchAll(/^\| (\d) \| (.+) \|$/gm)].map((m): [string, string] => [
    m[1]!,
    m[2]!.replace(/[`*]/g, ''),
  ]);
  if (rows.length < 8) throw new Error('docs/commands.md: the exit-code table was not found');
  return rows;
}

/** troff-safe text: backslashes, a leading dot or quote, and the characters troff spells its own way. */
const esc = (s: string) =>
  s
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/→/g, '\\(->')
    .replace(/^([.'])/gm, '\\&$1');

const flagOf = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`);

function option(o: ArgSpec): string {
  const names = [o.name, ...o.aliases].sort((a, b) => a.length - b.length).map((n) => `\\fB${esc(flagOf(n))}\\fR`);
  const value =
    o.type === 'boolean'
      ? ''
      : ` \\fI${o.choices ? esc(o.choices.join('|')) : o.type === 'number' ? 'N' : o.name === 'C' ? 'DIR' : 'VALUE'}\\fR`;
  return `.TP\n${names.join(', ')}${value}${o.array ? ' ...' : ''}\n${esc(o.describe ?? '')}\n`;
}

function command(s: CommandSpec, page: string): string {
  const usage = s.usage
    .split(' ')
    .slice(1)
    .map((w) => `\\fI${esc(w)}\\fR`);
  const aliases = s.aliases.length ? ` (alias: ${s.aliases.map(esc).join(', ')})` : '';
  const args = s.positionals
    .filter((p) => p.describe)
    .map(
      (p) => `.TP\n\\fI${esc(p.name)}\\fR\n${esc(p.describe!)}${p.choices ? esc(`: ${p.choices.join(', ')}`) : ''}\n`,
    );
  const body = [...args, ...s.options.map(option)].join('');
  const prefix = page === 'git-lazy' ? 'git lazy' : 'lazy';
  return (
    `.SS ${[`${prefix} ${esc(s.name)}`, ...usage].join(' ')}\n${esc(s.describe as string)}${aliases}.\n` +
    (body ? `.RS\n${body}.RE\n` : '')
  );
}

export function manPage({ page, version, doc }: ManInput): string {
  const prefix = page === 'git-lazy' ? 'git lazy' : 'lazy';
  const visible = commandSpecs().filter((s) => s.describe !== false);
  return [
    `.TH ${page.toUpperCase()} 1 "" "lazy ${esc(version)}" "lazy manual"\n`,
    `.SH NAME\n${esc(page)} \\- run AI coding agents on tasks whose whole state lives in git\n`,
    `.SH SYNOPSIS\n.B ${prefix}\n.RI [ options ] " command " [ arguments ]\n`,
    '.SH DESCRIPTION\n',
    esc(
      'lazy runs AI coding agents (Claude Code, Codex, or any command) on tasks, and keeps every piece of task ' +
        'state inside your git repository: each task is a ref under refs/lazy/tasks/, every change to it one ' +
        'commit. lazy and git lazy are the same program.',
    ),
    '\n.PP\n',
    esc(
      'A task is named by its full id or any unique prefix of at least 4 characters. Every command takes --json ' +
        '(one JSON document on stdout; a failure prints {"error":{"code","message","details"}}) and -C DIR.',
    ),
    '\n.PP\n',
    esc(
      `Help: ${prefix} --help, ${prefix} help COMMAND, ${prefix} COMMAND --help. ` +
        'Shell completion: eval "$(lazy completion bash)" (also zsh; lazy completion fish | source).',
    ),
    '\n.SH OPTIONS\n',
    ...globalSpec().options.map(option),
    '.SH COMMANDS\n',
    ...visible.map((s) => command(s, page)),
    '.SH EXIT STATUS\n',
    ...exitCodes(doc).map(([code, meaning]) => `.TP\n.B ${esc(code)}\n${esc(meaning)}\n`),
    '.SH SEE ALSO\n',
    `\\fBgit\\fR(1), \\fB${page === 'lazy' ? 'git-lazy' : 'lazy'}\\fR(1); the README and docs/ of lazy for the lifecycle, ` +
      'agents, configuration, team sync and the fleet.\n',
  ].join('');
}
