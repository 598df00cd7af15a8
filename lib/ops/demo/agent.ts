import { existsSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { env } from '../../core/env.js';
import { nodeBinary } from '../../core/proc.js';

// The built-in scripted agent `lazy demo` runs: a real command agent (launched by the
// supervisor like any other) that writes code, runs it, commits, and reports through
// $LAZY_RESULT. It needs no network and no credentials.

const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' });

export function demoAgent(prompt: string): number {
  const first = !existsSync('greet.js');
  const empty = /empty name/i.test(prompt);
  const body = empty
    ? 'export function greet(name) {\n' +
      "  return name && name.trim() ? `Hello, ${name.trim()}!` : 'Hello, stranger!';\n" +
      '}\n'
    : 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n';
  writeFileSync('greet.js', body);
  const check =
    first || !empty
      ? "import('./greet.js').then(m => { if (m.greet('Ada') !== 'Hello, Ada!') process.exit(1) })"
      : "import('./greet.js').then(m => { if (m.greet('') !== 'Hello, stranger!') process.exit(1) })";
  const test = run(nodeBinary(), ['--input-type=module', '-e', check]);
  run('git', ['add', 'greet.js']);
  run('git', ['commit', '-q', '-m', empty ? 'Greet an empty name as a stranger' : 'Add greet()']);
  console.log(empty ? 'updated greet() for empty names' : 'wrote greet.js');
  const envelope = {
    status: 'completed',
    summary: empty
      ? "greet('') now answers 'Hello, stranger!'"
      : "Added greet(name) in greet.js; greet('Ada') returns 'Hello, Ada!'.",
    risks: empty ? [] : ['empty names are not handled yet'],
    commands: [{ command: `node -e "${check}"`, exit_code: test.status ?? 1 }],
  };
  const result = env().LAZY_RESULT;
  if (result) writeFileSync(result, JSON.stringify(envelope));
  return 0;
}
