import { gitSync, type Sandbox } from './env.js';

// Writes task refs with plain git plumbing, bypassing lazy entirely: how a corrupt
// clone, a hand edit or a hostile remote would put data in front of lazy.

/** Builds a commit whose tree holds exactly these files and points ref at it. */
export function plantTree(sb: Sandbox, ref: string, files: Record<string, string>, parent?: string): string {
  const dirs = new Map<string, string[]>();
  const root: string[] = [];
  for (const [path, content] of Object.entries(files)) {
    const oid = gitSync(sb.dir, sb.env, ['hash-object', '-w', '--stdin'], content).trim();
    const slash = path.indexOf('/');
    if (slash < 0) root.push(`100644 blob ${oid}\t${path}`);
    else {
      const d = path.slice(0, slash);
      dirs.set(d, [...(dirs.get(d) ?? []), `100644 blob ${oid}\t${path.slice(slash + 1)}`]);
    }
  }
  for (const [d, lines] of dirs) {
    const oid = gitSync(sb.dir, sb.env, ['mktree'], lines.join('\n') + '\n').trim();
    root.push(`040000 tree ${oid}\t${d}`);
  }
  const tree = gitSync(sb.dir, sb.env, ['mktree'], root.join('\n') + '\n').trim();
  const commit = gitSync(
    sb.dir,
    sb.env,
    ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', 'planted'],
    '',
  ).trim();
  gitSync(sb.dir, sb.env, ['update-ref', ref, commit]);
  return commit;
}

/** Every file of a task ref, by path. */
export function readTaskFiles(sb: Sandbox, id: string): Record<string, string> {
  const ref = `refs/lazy/tasks/${id}`;
  const out: Record<string, string> = {};
  for (const path of gitSync(sb.dir, sb.env, ['ls-tree', '-r', '--name-only', ref]).trim().split('\n')) {
    out[path] = gitSync(sb.dir, sb.env, ['show', `${ref}:${path}`]);
  }
  return out;
}

/** task.yaml text with its id replaced (ids that start with a digit are written quoted). */
export const withId = (taskYaml: string, id: string) => taskYaml.replace(/^id: .*$/m, `id: "${id}"`);

/** A valid copy of task `from` under a new id (its task.yaml says the new id). */
export function cloneTask(sb: Sandbox, from: string, to: string): void {
  const files = readTaskFiles(sb, from);
  files['task.yaml'] = withId(files['task.yaml']!, to);
  plantTree(sb, `refs/lazy/tasks/${to}`, files);
}

/** Appends `n` copies of the task's last comment (new ids and clocks) in one commit, through git fast-import. */
export function plantComments(sb: Sandbox, id: string, n: number): void {
  const ref = `refs/lazy/tasks/${id}`;
  const name = gitSync(sb.dir, sb.env, ['ls-tree', '--name-only', `${ref}:turns`])
    .trim()
    .split('\n')
    .at(-1)!;
  const body = gitSync(sb.dir, sb.env, ['show', `${ref}:turns/${name}`]);
  const [, clock0, id0] = /^(\d+)-([0-9a-z]{8})\.yaml$/.exec(name)!;
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  let stream = `commit ${ref}\ncommitter A <a@example.com> 1700000000 +0000\ndata 7\nplanted\nfrom ${ref}^0\n`;
  for (let i = 1; i <= n; i++) {
    let eid = 'z';
    for (let k = 0, x = i; k < 7; k++, x = Math.floor(x / 32)) eid += alphabet[x % 32];
    const clock = Number(clock0) + i;
    const doc = body.replaceAll(id0!, eid).replace(/^clock: .*$/m, `clock: ${clock}`);
    stream += `M 100644 inline turns/${String(clock).padStart(10, '0')}-${eid}.yaml\ndata ${Buffer.byteLength(doc)}\n${doc}\n`;
  }
  gitSync(sb.dir, sb.env, ['fast-import', '--quiet'], `${stream}\n`);
}

/** A violation entry as lazy writes it. */
export const violationYaml = (o: {
  id: string;
  clock: number;
  file: string;
  run: string;
  commit: string;
  base: string;
}) =>
  `id: ${o.id}\nclock: ${o.clock}\ntimestamp: "2026-01-01T00:00:00.000Z"\nactor: system\nfile: ${JSON.stringify(o.file)}\nrun: "${o.run}"\ncommit: "${o.commit}"\nbase: "${o.base}"\n`;
