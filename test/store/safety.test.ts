import t from 'tap';
import {
  applySafety,
  isSafetyKey,
  safetyOf,
  union,
  withKey,
  SAFETY_LIMITS,
  type Safety,
} from '../../lib/store/safety.js';
import type { Config } from '../../lib/store/config/index.js';

// What a shared config pulled from a remote may not weaken before `lazy config trust`:
// protected globs may grow at once but never shrink; a safety limit keeps its trusted
// value when the shared one moves in either direction.

const trusted = (protectedGlobs: string[], limits: Safety['limits'] = {}): Safety => ({
  protected: protectedGlobs,
  limits,
});

t.test('applySafety: one row per shared change', async (t) => {
  const rows: [pins: string, shared: Config, trust: Safety | undefined, effective: Config, held: string[]][] = [
    [
      'nothing recorded yet: the shared config as is',
      { protected: [], watchdog_ms: 1 },
      undefined,
      { protected: [], watchdog_ms: 1 },
      [],
    ],
    [
      'no change',
      { protected: ['a'], watchdog_ms: 5 },
      trusted(['a'], { watchdog_ms: 5 }),
      { protected: ['a'], watchdog_ms: 5 },
      [],
    ],
    [
      'a glob added: applied at once (more protection is safer)',
      { protected: ['a', 'b'] },
      trusted(['a']),
      { protected: ['a', 'b'] },
      [],
    ],
    ['a glob dropped: still protected, held', { protected: [] }, trusted(['a']), { protected: ['a'] }, ['protected']],
    [
      'a glob changed: the old stays beside the new',
      { protected: ['b'] },
      trusted(['a']),
      { protected: ['b', 'a'] },
      ['protected'],
    ],
    [
      'a limit raised: the trusted value, held',
      { watchdog_ms: 10_000_000 },
      trusted([], { watchdog_ms: 60_000 }),
      { watchdog_ms: 60_000 },
      ['watchdog_ms'],
    ],
    [
      'a limit lowered: the trusted value, held',
      { retry_transient_max: 1 },
      trusted([], { retry_transient_max: 60 }),
      { retry_transient_max: 60 },
      ['retry_transient_max'],
    ],
    [
      'a limit removed (the default): the trusted value, held',
      {},
      trusted([], { stop_grace_ms: 500 }),
      { stop_grace_ms: 500 },
      ['stop_grace_ms'],
    ],
    [
      'a limit set where the trusted config had none: the default, held',
      { crash_window_ms: 1 },
      trusted([]),
      {},
      ['crash_window_ms'],
    ],
    [
      'a setting that is not a safety key passes',
      { worktree_dir: 'wt' } as Config,
      trusted([]),
      { worktree_dir: 'wt' } as Config,
      [],
    ],
  ];
  for (const [pins, shared, trust, effective, held] of rows) {
    const r = applySafety(shared, trust);
    t.same(r.effective, effective, `${pins}: in effect`);
    t.same(
      r.held.map((h) => h.key),
      held,
      `${pins}: held ${JSON.stringify(held)}`,
    );
  }
  const dropped = applySafety({ protected: ['b'] }, trusted(['a', 'c'])).held[0]!;
  t.same(dropped, {
    key: 'protected',
    shared: ['b'],
    in_effect: ['b', 'a', 'c'],
    reason: "the shared config drops 'a', 'c' from protected; still protected until lazy config trust",
  });
  t.equal(
    applySafety({ watchdog_ms: 9 }, trusted([], { watchdog_ms: 60_000 })).held[0]!.reason,
    'a shared change to a safety limit (60000 → 9) is not applied until lazy config trust',
  );
  t.equal(
    applySafety({ watchdog_ms: 9 }, trusted([])).held[0]!.reason,
    'a shared change to a safety limit (the default → 9) is not applied until lazy config trust',
  );
  const shared: Config = { protected: [] };
  applySafety(shared, trusted(['a']));
  t.same(shared, { protected: [] }, 'the shared config itself is not changed');
});

t.test('safetyOf, withKey, isSafetyKey, union', async (t) => {
  t.same(safetyOf({ protected: ['a'], watchdog_ms: 5, worktree_dir: 'x' } as Config), {
    protected: ['a'],
    limits: { watchdog_ms: 5 },
  });
  t.same(safetyOf({}), { protected: [], limits: {} }, 'nothing set');
  const s = trusted(['a'], { watchdog_ms: 5, stop_grace_ms: 1 });
  t.same(
    withKey(s, { protected: ['z'] }, 'protected'),
    trusted(['z'], { watchdog_ms: 5, stop_grace_ms: 1 }),
    'protected taken whole',
  );
  t.same(
    withKey(s, { watchdog_ms: 7 }, 'watchdog_ms'),
    trusted(['a'], { watchdog_ms: 7, stop_grace_ms: 1 }),
    'one limit taken',
  );
  t.same(withKey(s, {}, 'stop_grace_ms'), trusted(['a'], { watchdog_ms: 5 }), 'an unset limit is dropped');
  t.same(s, trusted(['a'], { watchdog_ms: 5, stop_grace_ms: 1 }), 'the recorded safety is not changed');
  for (const k of ['protected', ...SAFETY_LIMITS]) t.ok(isSafetyKey(k), `${k} is a safety key`);
  for (const k of ['worktree_dir', 'agents', 'watchdog']) t.notOk(isSafetyKey(k), `${k} is not`);
  t.same(union(['a', 'b'], undefined, ['b', 'c']), ['a', 'b', 'c'], 'union keeps first-seen order');
});
