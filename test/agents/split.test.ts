import t from 'tap';
import { splitCommand } from '../../lib/agents/adapters/split.js';

t.test('splitting a command line like a shell, without a shell', async (t) => {
  t.same(splitCommand(`node "/path with spaces/a.mjs" --x='a b' plain\\ word "q\\"uote" ''`), [
    'node',
    '/path with spaces/a.mjs',
    '--x=a b',
    'plain word',
    'q"uote',
    '',
  ]);
  t.same(
    splitCommand('echo $HOME `id` ; rm -rf / | cat'),
    ['echo', '$HOME', '`id`', ';', 'rm', '-rf', '/', '|', 'cat'],
    'no expansion, no operators',
  );
  t.throws(() => splitCommand('"unterminated'), /unterminated double quote/);
  t.throws(() => splitCommand('   '), /empty/);
});
