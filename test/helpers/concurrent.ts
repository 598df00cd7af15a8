import tap, { type Test } from 'tap';

// A file's independent cases (each in its own sandbox or team) run `jobs` at a time: most of
// a case is spent waiting on git, the supervisor and the agent, not on this process. They run
// inside one top-level test, so the process registry (helpers/procs.ts) checks for leftovers
// once the group ends; each case's teardown still stops and removes its own folder.

type Case = { name: string; fn: (t: Test) => Promise<void> };

/** `const test = concurrent(4); test('name', async (t) => ...)` in place of `t.test`. */
export function concurrent(jobs: number): (name: string, fn: Case['fn']) => void {
  const cases: Case[] = [];
  return (name, fn) => {
    if (cases.length === 0)
      tap.test(`independent cases, ${jobs} at a time`, async (group) => {
        // Every case of the file is declared once its module has been evaluated.
        await new Promise((r) => setImmediate(r));
        group.jobs = jobs;
        for (const c of cases) group.test(c.name, c.fn);
      });
    cases.push({ name, fn });
  };
}
