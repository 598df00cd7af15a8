import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Adapter, StreamState } from '../../lib/agents/adapters/adapter.js';
import { ROOT } from './env.js';

// A recorded run of a real agent CLI (test/fixtures/agents/<cli>-<version>/<case>.stdout|.stderr|.meta.json)
// played through its adapter: what the adapter made of each line, and the failure it would classify.

export const RECORDINGS = join(ROOT, 'test', 'fixtures', 'agents');

export function replay(adapter: Adapter, dir: string, name: string) {
  const stdout = readFileSync(join(dir, `${name}.stdout`), 'utf8');
  const stderr = readFileSync(join(dir, `${name}.stderr`), 'utf8');
  const meta = JSON.parse(readFileSync(join(dir, `${name}.meta.json`), 'utf8'));
  const state: StreamState = {};
  const lines = stdout.split('\n').filter(Boolean);
  const kinds = lines.map((l) => adapter.parseLine(l, state));
  const failure = {
    exitCode: meta.exit_code ?? null,
    signal: meta.signal ?? null,
    state,
    tail: `${stdout}\n${stderr}`,
  };
  return { state, kinds, failure, meta, stdout, lines };
}
