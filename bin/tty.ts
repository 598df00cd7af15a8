import { createInterface } from 'node:readline';
import { writeOut } from '../lib/output/emit.js';

// Terminal interaction: questions only on a terminal, never a wait without one.

/** Asks y/N on a terminal; without one it never waits and the answer is yes. */
export async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return true;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer: string = await new Promise((res) => rl.question(`${question} [y/N] `, res));
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/** Phase narration: "[2/4] label…" on a terminal, one plain line per phase otherwise (stderr under --json). */
export function narrator(json: boolean) {
  return (i: number, n: number, label: string) => {
    if (json) process.stderr.write(`accept: ${label}\n`);
    else if (process.stdout.isTTY) writeOut(`[${i}/${n}] ${label}…\n`);
    else writeOut(`accept: ${label}\n`);
  };
}
