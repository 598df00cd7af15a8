import t from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandbox, cli, gitSync, LAZY, type Sandbox } from '../helpers/env.js';
import { openRepo } from '../../lib/core/repo.js';
import { withLock } from '../../lib/core/lock.js';
import { createPacked, looseTaskRefs, packWhenLoose, LOOSE_REFS_MAX } from '../../lib/store/packed.js';

// Packed refs: many new refs written straight into packed-refs (a first pull), and loose task refs packed once
// there are more than LOOSE_REFS_MAX, under lazy's packing lock, never losing a compare-and-swap that races the pack.

const git = (sb: Sandbox, ...args: string[]) => gitSync(sb.dir, sb.env, args).trim();
const head = (sb: Sandbox) => git(sb, 'rev-parse', 'HEAD');

/** n task refs made loose by one update-ref transaction, all at the given commit. */
function looseRefs(sb: Sandbox, n: number, oid: string): string[] {
  const ids = Array.from({ length: n }, (_, i) => `z${String(i).padStart(7, '0')}`);
  gitSync(sb.dir, sb.env, ['update-ref', '--stdin'], ids.map((id) => `create refs/lazy/tasks/${id} ${oid}\n`).join(''));
  return ids;
}

t.test(
  'createPacked writes new refs into packed-refs, keeps what was packed, and refuses refs that exist',
  async (t) => {
    const sb = sandbox();
    t.teardown(sb.cleanup);
    const oid = head(sb);
    git(sb, 'branch', 'kept');
    git(sb, 'pack-refs', '--all');
    git(sb, 'update-ref', 'refs/lazy/tasks/loose001', oid);
    const common = join(sb.dir, '.git');
    const creates = ['b0000001', 'a0000001', 'loose001', 'kept'].map((id) => ({
      ref: id === 'kept' ? 'refs/heads/kept' : `refs/lazy/tasks/${id}`,
      next: oid,
    }));
    const r = await createPacked(common, creates);
    t.same(
      r?.lost.sort(),
      ['refs/heads/kept', 'refs/lazy/tasks/loose001'],
      'a loose or packed ref is never overwritten',
    );
    t.equal(git(sb, 'rev-parse', 'refs/lazy/tasks/a0000001'), oid);
    t.equal(git(sb, 'rev-parse', 'kept'), oid, 'the refs packed before stay');
    t.notOk(existsSync(join(common, 'refs/lazy/tasks/a0000001')), 'no loose file was written');
    const packed = readFileSync(join(common, 'packed-refs'), 'utf8').split('\n');
    t.match(packed[0], /^# pack-refs with: .*sorted/);
    const names = packed
      .slice(1)
      .filter(Boolean)
      .map((l) => l.split(' ')[1]!);
    t.same(names, [...names].sort(), 'sorted, as the header says');
    t.equal(git(sb, 'for-each-ref', '--format=%(refname)', 'refs/lazy/tasks/').split('\n').length, 3);
    // git itself reads and updates what was written: a compare-and-swap from the packed value.
    git(sb, 'commit', '--allow-empty', '-qm', 'next');
    git(sb, 'update-ref', 'refs/lazy/tasks/a0000001', head(sb), oid);
    t.equal(git(sb, 'rev-parse', 'refs/lazy/tasks/a0000001'), head(sb));
    t.equal(git(sb, 'fsck', '--connectivity-only', '--no-progress'), '');
  },
);

t.test("createPacked keeps the mode of the packed-refs it replaces (a shared repository's group bits)", async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  git(sb, 'branch', 'kept');
  git(sb, 'pack-refs', '--all');
  const file = join(sb.dir, '.git', 'packed-refs');
  chmodSync(file, 0o640);
  const r = await createPacked(join(sb.dir, '.git'), [{ ref: 'refs/lazy/tasks/a0000001', next: head(sb) }]);
  t.same(r?.lost, []);
  t.equal(statSync(file).mode & 0o777, 0o640, 'the same mode after the rewrite (no umask gives 0640 by itself)');
  t.equal(git(sb, 'rev-parse', 'refs/lazy/tasks/a0000001'), head(sb));
});

t.test('createPacked gives way while git holds packed-refs.lock, and leaves the lock alone', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const lock = join(sb.dir, '.git', 'packed-refs.lock');
  writeFileSync(lock, '');
  t.equal(await createPacked(join(sb.dir, '.git'), [{ ref: 'refs/lazy/tasks/a0000001', next: head(sb) }]), null);
  t.ok(existsSync(lock), "git's lock is not removed");
});

t.test('createPacked leaves a reftable repository to the loose path (git never reads its packed-refs)', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  // git 2.39 cannot make one: the folder that marks the backend is what createPacked looks for.
  mkdirSync(join(sb.dir, '.git', 'reftable'));
  t.equal(await createPacked(join(sb.dir, '.git'), [{ ref: 'refs/lazy/tasks/a0000001', next: head(sb) }]), null);
  t.notOk(existsSync(join(sb.dir, '.git', 'packed-refs.lock')), 'no lock taken');
  t.notOk(/a0000001/.test(readIf(join(sb.dir, '.git', 'packed-refs'))), 'nothing written to packed-refs');
});

const readIf = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');

t.test(
  'packWhenLoose packs above the threshold only, once when two race, with the code doctor --fix uses',
  async (t) => {
    const sb = sandbox();
    t.teardown(sb.cleanup);
    const repo = await openRepo(sb.dir);
    looseRefs(sb, LOOSE_REFS_MAX, head(sb));
    t.equal(await packWhenLoose(repo), 0, 'at the threshold nothing is packed');
    t.equal(looseTaskRefs(repo.commonDir), LOOSE_REFS_MAX);
    git(sb, 'update-ref', 'refs/lazy/tasks/y0000001', head(sb));
    const both = await Promise.all([packWhenLoose(repo), packWhenLoose(repo)]);
    t.same(both.sort(), [0, LOOSE_REFS_MAX + 1], 'one packs, the other counts again under the lock and finds none');
    t.equal(looseTaskRefs(repo.commonDir), 0);
    t.equal(git(sb, 'for-each-ref', '--format=%(refname)', 'refs/lazy/tasks/').split('\n').length, LOOSE_REFS_MAX + 1);
  },
);

t.test('a create whose pack cannot take the packing lock still succeeds: the pack is best effort', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const repo = await openRepo(sb.dir);
  looseRefs(sb, LOOSE_REFS_MAX + 1, head(sb));
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let holding!: () => void;
  const taken = new Promise<void>((r) => (holding = r));
  const holder = withLock(repo.lazyDir, 'packing', async () => (holding(), held));
  await taken;
  const r = await cli(sb, { LAZY_LOCK_TIMEOUT_MS: '300' }).spawn('create', 'while another packs', '--json');
  release();
  await holder;
  t.equal(r.code, 0, `the task was created, so the command says so (${r.stderr})`);
  t.match(JSON.parse(r.stdout), { task: { goal: 'while another packs' } });
  t.ok(looseTaskRefs(repo.commonDir) > LOOSE_REFS_MAX, 'the pack was left to a later command');
});

t.test('createPacked keeps a packed-refs file that had no header without one', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const oid = head(sb);
  const file = join(sb.dir, '.git', 'packed-refs');
  writeFileSync(file, `${oid} refs/heads/old\n`);
  t.same((await createPacked(join(sb.dir, '.git'), [{ ref: 'refs/lazy/tasks/a0000001', next: oid }]))?.lost, []);
  const text = readFileSync(file, 'utf8');
  t.notOk(text.startsWith('#'), 'no traits claimed for refs this file held before (a tag there may have no peel line)');
  t.equal(git(sb, 'rev-parse', 'refs/lazy/tasks/a0000001'), oid);
  t.equal(git(sb, 'rev-parse', 'refs/heads/old'), oid);
});

/** Runs the CLI in its own process; resolves with its exit code and stderr. */
function lazyProc(sb: Sandbox, args: string[]): Promise<{ code: number; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [LAZY, ...args], {
      cwd: sb.dir,
      env: sb.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d));
    p.on('close', (code) => resolve({ code: code ?? 1, err }));
  });
}

/** git pack-refs --all in a loop in its own process, until `stop` is set: the pack lazy runs, as often as it can. */
function packer(sb: Sandbox, stop: { done: boolean }): Promise<number> {
  return new Promise((resolve) => {
    let packs = 0;
    const once = () => {
      if (stop.done) return resolve(packs);
      const p = spawn('git', ['pack-refs', '--all'], { cwd: sb.dir, env: sb.env, stdio: 'ignore' });
      p.on('close', () => (packs++, once()));
    };
    once();
  });
}

t.test('compare-and-swap writes racing packs, in separate processes, are never lost', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const ids = [await l.create('one'), await l.create('two'), await l.create('three')];
  // Loose refs over the threshold: the creates below pack them (lazy's own pack, under its lock) while comments run.
  looseRefs(sb, LOOSE_REFS_MAX + 10, head(sb));
  const stop = { done: false };
  const packing = packer(sb, stop);
  const ROUNDS = 4;
  const writers = ids.map(async (id, w) => {
    const codes: { code: number; err: string }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      codes.push(await lazyProc(sb, ['comment', id, '-m', `comment ${i}`]));
      if (w === 0) codes.push(await lazyProc(sb, ['create', `created ${i}`]));
    }
    return codes;
  });
  const results = (await Promise.all(writers)).flat();
  stop.done = true;
  const packs = await packing;
  t.ok(packs > 0, `git packed ${packs} times meanwhile`);
  t.same(
    results.filter((r) => r.code !== 0),
    [],
    'every write succeeded',
  );
  for (const id of ids) {
    const shown = (await l.json('show', id)).value;
    const v = shown.task ?? shown;
    t.same(
      v.turns.map((x: { content: string }) => x.content),
      Array.from({ length: ROUNDS }, (_, i) => `comment ${i}`),
      `${id}: every comment is there, in order`,
    );
  }
  t.equal(looseTaskRefs(join(sb.dir, '.git')) <= LOOSE_REFS_MAX, true, 'the loose refs were packed');
  t.equal(git(sb, 'fsck', '--connectivity-only', '--no-progress'), '');
});

t.test(
  'createPacked racing git creating the same refs loose: each ref has one value, and lost says whose',
  async (t) => {
    const sb = sandbox();
    t.teardown(sb.cleanup);
    const ours = head(sb);
    git(sb, 'commit', '--allow-empty', '-qm', 'theirs');
    const theirs = head(sb);
    for (let round = 0; round < 5; round++) {
      const ids = Array.from({ length: 300 }, (_, i) => `r${round}${String(i).padStart(6, '0')}`);
      const refs = ids.map((id) => `refs/lazy/tasks/${id}`);
      // git's own creations, one ref at a time (each a compare-and-swap from nothing), in another process.
      const input = refs.map((r) => `start\ncreate ${r} ${theirs}\ncommit\n`).join('');
      const other = new Promise<void>((resolve) => {
        const p = spawn('git', ['update-ref', '--stdin'], {
          cwd: sb.dir,
          env: sb.env,
          stdio: ['pipe', 'ignore', 'ignore'],
        });
        p.on('close', () => resolve());
        p.stdin.end(input);
      });
      const r = await createPacked(
        join(sb.dir, '.git'),
        refs.map((ref) => ({ ref, next: ours })),
      );
      await other;
      const lost = new Set(r?.lost ?? refs);
      const wrong = refs.filter((ref) => (git(sb, 'rev-parse', ref) === ours) === lost.has(ref));
      t.same(wrong, [], `round ${round}: ${lost.size} lost, each to git's own value`);
    }
  },
);
