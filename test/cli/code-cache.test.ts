import t from 'tap';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { sandbox, LAZY, ROOT } from '../helpers/env.js';

// bin/lazy.cjs compiles the bundle through V8's code cache. The cache names the commands whose functions it
// holds: whichever command runs first after an install, a later command adds its own once.

t.test('the code cache gains each command once, and starts again for another bundle', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  // A private install: the loader and the bundle, so this test's cache is its own.
  const install = join(sb.home, 'install');
  mkdirSync(join(install, 'bin'), { recursive: true });
  mkdirSync(join(install, 'dist'));
  copyFileSync(LAZY, join(install, 'bin', 'lazy.cjs'));
  copyFileSync(join(ROOT, 'dist', 'cli.cjs'), join(install, 'dist', 'cli.cjs'));
  const cache = join(install, 'dist', `cli.cjs.${process.version}-${process.arch}.cache`);
  const lazy = (...args: string[]) => {
    const r = spawnSync(process.execPath, [join(install, 'bin', 'lazy.cjs'), ...args], {
      cwd: sb.dir,
      env: { ...sb.env, LAZY_CLI: '' },
      encoding: 'utf8',
    });
    t.equal(r.status, 0, `lazy ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const named = () => JSON.parse(readFileSync(cache, 'utf8').split('\n')[0]!) as string[];

  copyFileSync(join(ROOT, 'package.json'), join(install, 'package.json'));
  t.equal(lazy('--version').trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  t.notOk(existsSync(cache), '--version is answered before the bundle loads: no cache');
  lazy('--help');
  t.same(named(), [''], 'the first command writes it');
  const size = statSync(cache).size;
  lazy('-C', sb.dir, 'inbox');
  t.same(named(), ['', 'inbox'], 'inbox adds itself; -C names a folder, not a command');
  t.ok(statSync(cache).size > size, 'with the functions it compiled');
  const written = statSync(cache).mtimeMs;
  t.match(lazy('inbox'), /nothing needs you/i, 'a command runs from the cache');
  t.equal(statSync(cache).mtimeMs, written, 'a command it names does not write it again');

  // The commands run most keep their own cache: the shared one, holding every command's functions, grows large.
  const own = cache.replace(/\.cache$/, '.list.cache');
  lazy('list');
  t.same(named(), ['', 'inbox'], 'list leaves the shared cache alone');
  t.same(JSON.parse(readFileSync(own, 'utf8').split('\n')[0]!), ['list'], 'and writes its own');
  t.ok(statSync(own).size < statSync(cache).size, 'smaller than the shared one');

  appendFileSync(join(install, 'dist', 'cli.cjs'), '\n// another build\n');
  lazy('inbox');
  t.same(named(), ['inbox'], 'another bundle: V8 rejects the data, and the cache starts again');

  writeFileSync(cache, Buffer.from([0, 1, 2, 3]));
  lazy('inbox');
  t.same(named(), ['inbox'], 'a file of another layout is replaced, not trusted');
});
