import { usageError } from '../../core/errors.js';

// Splits a configured command line into argv the way a POSIX shell would tokenise it
// (quotes, backslashes, whitespace), without ever running a shell: no expansion, no
// globbing, no pipes.

export function splitCommand(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let i = 0;
  const fail = (why: string) => {
    throw usageError(`cannot parse command line ${JSON.stringify(line)}: ${why}`);
  };
  while (i < line.length) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) fail('unterminated single quote');
      cur += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= line.length) fail('unterminated double quote');
        const d = line[i]!;
        if (d === '"') {
          i++;
          break;
        }
        if (d === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1]!)) {
          if (line[i + 1] !== '\n') cur += line[i + 1];
          i += 2;
          continue;
        }
        cur += d;
        i++;
      }
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 >= line.length) fail('trailing backslash');
      if (line[i + 1] !== '\n') cur += line[i + 1];
      inWord = true;
      i += 2;
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) {
        out.push(cur);
        cur = '';
        inWord = false;
      }
      i++;
    } else {
      cur += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) out.push(cur);
  if (out.length === 0) fail('it is empty');
  return out;
}
