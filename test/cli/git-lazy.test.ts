import t from 'tap';
import { mkdirSync, symlinkSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { sandbox, LAZY, ROOT } from '../helpers/env.js';

t.test('package.json declares lazy and git-lazy, so `git lazy …` works', async (t) => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  t.same(pkg.bin, { lazy: 'bin/lazy.cjs', 'git-lazy': 'bin/lazy.cjs' });
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const binDir = join(sb.home, 'bin');
  mkdirSync(binDir);
  symlinkSync(LAZY, join(binDir, 'git-lazy'));
  const env = { ...sb.env, PATH: `${binDir}:${dirname(process.execPath)}:${process.env.PATH}` };
  const r = spawnSync('git', ['lazy', 'create', 'via git lazy', '--json'], { cwd: sb.dir, env, encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  t.equal(JSON.parse(r.stdout).task.goal, 'via git lazy');
  const v = spawnSync('git', ['lazy', '--version'], { cwd: sb.dir, env, encoding: 'utf8' });
  t.equal(v.stdout.trim(), pkg.version);
});
