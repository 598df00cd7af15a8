import t from 'tap';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './helpers/env.js';

// At a file's size cap, make a folder: a unit of several files is a folder with one entry point (index.ts), never a
// flat family of names sharing a prefix (doctor.ts beside doctor-repair.ts, listing-rows.ts beside listing-files.ts).

function folders(dir: string): string[] {
  const out = [dir];
  for (const e of readdirSync(dir)) if (statSync(join(dir, e)).isDirectory()) out.push(...folders(join(dir, e)));
  return out;
}

/** The families in one folder: a stem shared by `stem.ts` and `stem-x.ts`, or by two `stem-*.ts`. */
function families(names: string[]): Map<string, string[]> {
  const stems = new Map<string, string[]>();
  const ts = names.filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts')).map((n) => n.slice(0, -3));
  for (const n of ts) {
    const stem = n.split('-')[0]!;
    stems.set(stem, [...(stems.get(stem) ?? []), `${n}.ts`]);
  }
  return new Map([...stems].filter(([stem, files]) => files.length > 1 && files.some((f) => f !== `${stem}.ts`)));
}

t.test('the families finder', async (t) => {
  t.same([...families(['doctor.ts', 'doctor-repair.ts', 'work.ts']).keys()], ['doctor']);
  t.same([...families(['listing-rows.ts', 'listing-files.ts']).keys()], ['listing']);
  t.same(
    [...families(['merge-docs.ts', 'write-merge.ts', 'config-merge.ts']).keys()],
    [],
    'one of a stem is no family',
  );
  t.same([...families(['string-width.ts', 'format.ts']).keys()], []);
});

t.test('no flat prefix family in lib/ or bin/: a unit of several files is a folder', async (t) => {
  for (const top of ['lib', 'bin']) {
    for (const dir of folders(join(ROOT, top))) {
      // bin/commands holds one file per command, named as the command is (demo and __demo-agent are two commands).
      if (relative(ROOT, dir) === join('bin', 'commands')) continue;
      const found = families(readdirSync(dir));
      t.same(
        Object.fromEntries(found),
        {},
        `${relative(ROOT, dir) || '.'}: no family of files sharing a name (make a folder with an index.ts)`,
      );
    }
  }
});
