import t from 'tap';
import { FIXED_SEED, seeded } from './helpers/seed.js';

// The randomised tests' seed (test/helpers/seed.ts): npm test repeats itself, npm run soak sweeps through
// TEST_SEED, and a test's own variable replays one seed whatever the sweep says.

const draw = (s: { rand: () => number }) => Array.from({ length: 5 }, s.rand);

t.test('with no seed named, every run draws the same numbers', async (t) => {
  const a = seeded('SYNC_SEED', {});
  t.equal(a.seed, FIXED_SEED);
  t.equal(a.replay, `SYNC_SEED=${FIXED_SEED}`);
  t.same(draw(a), draw(seeded('SYNC_SEED', { SYNC_SEED: '' })), 'an empty variable is no seed');
  t.ok(
    draw(seeded('X', {})).every((x) => x >= 0 && x < 1),
    'uniform in [0, 1)',
  );
});

t.test('TEST_SEED sweeps, the test variable replays, and they differ from the fixed seed', async (t) => {
  const swept = seeded('SYNC_SEED', { TEST_SEED: '17' });
  t.equal(swept.seed, 17);
  t.equal(swept.replay, 'SYNC_SEED=17', 'the replay names the test variable, which wins over TEST_SEED');
  t.same(draw(seeded('SYNC_SEED', { SYNC_SEED: '17', TEST_SEED: '99' })), draw(swept), 'the replay draws the same');
  t.notSame(draw(swept), draw(seeded('SYNC_SEED', {})), 'another seed draws other numbers');
  t.equal(seeded('X', { X: '3' }).pick(['only']), 'only');
});

t.test('a seed that is not a whole number is refused, naming the variable', async (t) => {
  t.throws(() => seeded('CRASH_SEED', { CRASH_SEED: 'abc' }), /CRASH_SEED: not a seed: abc/);
  t.throws(() => seeded('CRASH_SEED', { TEST_SEED: '-1' }), /not a seed/);
});
