import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, gitSync, testEnv, type Sandbox } from './env.js';
import { FAKE_COMMAND } from './agent.js';
import { trackFolder } from './procs.js';

// A bare remote and N clones of it, each a full sandbox with the fake agent configured
// per clone (local config, so nothing about agents travels).

export interface Team {
  root: string;
  remote: string;
  clones: Sandbox[];
  cleanup(): Promise<void>;
}

export function team(n: number, name = 'lazy-team'): Team {
  const root = mkdtempSync(join(tmpdir(), `${name}-`));
  const cleanup = trackFolder(root);
  const home = join(root, 'home');
  gitSync(root, process.env, ['init', '-q', '--bare', '-b', 'main', join(root, 'remote.git')]);
  const env0 = testEnv(home);
  gitSync(root, env0, ['-c', 'init.defaultBranch=main', 'clone', '-q', join(root, 'remote.git'), 'seed']);
  writeFileSync(join(root, 'seed', 'README.md'), '# team\n');
  gitSync(join(root, 'seed'), env0, ['add', '.']);
  gitSync(join(root, 'seed'), env0, ['commit', '-q', '-m', 'initial commit']);
  gitSync(join(root, 'seed'), env0, ['push', '-q', 'origin', 'HEAD:main']);
  const clones: Sandbox[] = [];
  for (let i = 0; i < n; i++) {
    const dir = join(root, `clone${i}`);
    const h = join(root, `home${i}`);
    gitSync(root, env0, ['clone', '-q', join(root, 'remote.git'), dir]);
    const env = testEnv(h, {
      GIT_AUTHOR_NAME: `Dev ${i}`,
      GIT_COMMITTER_NAME: `Dev ${i}`,
      GIT_AUTHOR_EMAIL: `dev${i}@example.com`,
      GIT_COMMITTER_EMAIL: `dev${i}@example.com`,
      FAKE_STATE: join(h, 'fake'),
      FAKE_SCENARIO: 'succeed',
    });
    clones.push({ dir, home: h, env, cleanup });
  }
  return { root, remote: join(root, 'remote.git'), clones, cleanup };
}

export async function withFakeAgent(sb: Sandbox): Promise<void> {
  const l = cli(sb);
  for (const [k, v] of [
    ['agents.fake.command', FAKE_COMMAND],
    ['agent', 'fake'],
    ['retry_base_ms', '100'],
  ]) {
    const r = await l('config', 'set', k!, v!, '--local');
    if (r.code !== 0) throw new Error(r.stderr);
  }
}
