import t from 'tap';
import { gitPerson } from '../../lib/core/actor.js';
import { withEnv } from '../../lib/core/env.js';
import { gitSync, sandbox } from '../helpers/env.js';

// The author identity: taken from GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL when git would take them as they are
// (no process), and from `git var GIT_AUTHOR_IDENT` otherwise; either way exactly what git would write.

t.test('the identity is what git var says, with or without asking git', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const cases: [string, NodeJS.ProcessEnv][] = [
    ['plain names from the environment', { GIT_AUTHOR_NAME: 'Ada Lovelace', GIT_AUTHOR_EMAIL: 'ada@example.com' }],
    ['crud git strips', { GIT_AUTHOR_NAME: ' Ada. ', GIT_AUTHOR_EMAIL: '<ada@example.com>' }],
    ['a control character at an end', { GIT_AUTHOR_NAME: 'Ada\u0001', GIT_AUTHOR_EMAIL: 'ada@example.com' }],
    ['a date of its own', { GIT_AUTHOR_DATE: '2020-01-01T00:00:00+0530' }],
    ['the name from config', { GIT_AUTHOR_NAME: undefined, GIT_AUTHOR_EMAIL: undefined }],
  ];
  gitSync(sb.dir, sb.env, ['config', 'user.name', 'Config Person']);
  gitSync(sb.dir, sb.env, ['config', 'user.email', 'config@example.com']);
  for (const [what, extra] of cases) {
    const env = Object.fromEntries(Object.entries({ ...sb.env, ...extra }).filter(([, v]) => v !== undefined));
    const m = /^(.*) <(.*)> \d+ ([+-]\d{4})$/.exec(gitSync(sb.dir, env, ['var', 'GIT_AUTHOR_IDENT']).trim())!;
    const p = await withEnv(env, () => gitPerson(sb.dir));
    t.same([p.name, p.email], [m[1], m[2]], `${what}: the name and email git would write`);
    const [sign, hh, mm] = [m[3]![0], Number(m[3]!.slice(1, 3)), Number(m[3]!.slice(3))];
    t.equal(p.timezoneOffset, (hh * 60 + mm) * (sign === '-' ? 1 : -1) || 0, `${what}: the timezone git would write`);
  }
});
