import t from 'tap';
import { sandbox } from '../helpers/env.js';
import { openRepo } from '../../lib/core/repo.js';
import { ObjectReader } from '../../lib/store/objects.js';
import { ObjectWriter } from '../../lib/store/writer.js';
import { expired, readLease, writeLease, type LeaseDoc } from '../../lib/fleet/lease.js';
import { gitSync } from '../helpers/env.js';

// Lease documents: written as a commit (objects only, no ref), read back by object id; one that
// fails its schema reads as null, so it is never taken for an expired lease.

const author = { name: 'T', email: 't@example.com', timestamp: 1_700_000_000, timezoneOffset: 0 };
const doc: LeaseDoc = {
  task: 'abcd2345',
  run: 'rvn23456',
  host: 'box-a',
  until: '2026-06-01T12:05:00.000Z',
  renewed_at: '2026-06-01T12:00:00.000Z',
};

t.test('a lease commit round-trips, chains on the lease it renews, and writes no ref', async (t) => {
  const sb = sandbox('lazy-lease');
  t.teardown(sb.cleanup);
  const repo = await openRepo(sb.dir);
  const objects = new ObjectReader(sb.dir);
  t.teardown(() => objects.close());
  const first = await writeLease(repo, doc, null, author);
  const next = await writeLease(repo, { ...doc, until: '2026-06-01T12:10:00.000Z' }, first, author);
  t.same(await readLease(objects, first), doc);
  t.equal((await readLease(objects, next))!.until, '2026-06-01T12:10:00.000Z');
  t.equal(
    gitSync(sb.dir, sb.env, ['rev-parse', `${next}^`]).trim(),
    first,
    'a renewal is a fast-forward of the last lease',
  );
  t.equal(gitSync(sb.dir, sb.env, ['for-each-ref', 'refs/lazy/']).trim(), '', 'no local lease ref');
  t.ok(expired(doc, Date.parse(doc.until) + 1));
  t.notOk(expired(doc, Date.parse(doc.until)));
});

t.test('a lease that fails its schema, or is no lease at all, reads as null', async (t) => {
  const sb = sandbox('lazy-lease');
  t.teardown(sb.cleanup);
  const repo = await openRepo(sb.dir);
  const objects = new ObjectReader(sb.dir);
  t.teardown(() => objects.close());
  await t.rejects(writeLease(repo, { ...doc, until: 'tomorrow' }, null, author), /lease schema/, 'never written');
  const w = new ObjectWriter(repo.commonDir);
  const blob = await w.blob('task: abcd2345\nrun: rvn23456\nhost: box-a\nuntil: soon\nrenewed_at: now\n');
  const bad = await w.writeTreeCommit(new Map([['lease.yaml', { blob }]]), { parents: [], message: 'x\n', author });
  t.equal(await readLease(objects, bad), null, 'schema failure');
  t.equal(
    await readLease(objects, gitSync(sb.dir, sb.env, ['rev-parse', 'HEAD']).trim()),
    null,
    'a commit without lease.yaml',
  );
  t.equal(await readLease(objects, 'f'.repeat(40)), null, 'a missing object');
});
