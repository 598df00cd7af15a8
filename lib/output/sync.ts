import type { PullResult, PushResult, SyncResult } from '../sync/sync.js';
import type { ArchiveOutcome } from '../store/archive/index.js';

const n = (list: string[]) => String(list.length);

export function renderPull(p: PullResult): string {
  const lines = [
    `pull from ${p.remote}: ${n(p.new)} new, ${n(p.updated)} updated, ${n(p.merged)} merged, ` +
      `${p.rejected.length} rejected, ${p.unchanged} unchanged` +
      (p.local_ahead.length ? `, ${p.local_ahead.length} ahead of the remote` : '') +
      (p.config !== 'absent' && p.config !== 'unchanged' ? `; config ${p.config}` : ''),
  ];
  for (const c of p.concurrent) lines.push(`  ${c.id}: concurrent change, set aside: ${c.set_aside.join('; ')}`);
  for (const r of p.rejected) lines.push(`  rejected ${r.id}: ${r.reason}`);
  if (p.config_rejected) lines.push(`  rejected config: ${p.config_rejected.reason}`);
  if (p.config_held)
    lines.push(`  held back until lazy config trust (see lazy config list): ${p.config_held.join(', ')}`);
  lines.push(...pulledBranches(p.branches));
  for (const u of p.upstream) lines.push(`  ${u.task} ${u.action} upstream: ${u.detail}`);
  const a = p.archive;
  if (a.dropped.length) lines.push(`  archived on the remote: ${a.dropped.length} task(s)`);
  if (a.revived.length) lines.push(`  changed on the remote since archived here, live again: ${a.revived.join(', ')}`);
  return lines.join('\n');
}

function pulledBranches(b: PullResult['branches']): string[] {
  const counts: [string, string[]][] = [
    ['created', b.created],
    ['fast-forwarded', b.updated],
    ['pruned', b.pruned],
    ['cleaned up after an accept', b.cleaned],
  ];
  const said = counts.filter(([, l]) => l.length).map(([w, l]) => `${l.length} ${w}`);
  if (b.diverged.length) said.push(`${b.diverged.length} diverged`);
  if (b.kept.length) said.push(`${b.kept.length} kept`);
  const lines = said.length ? [`  branches: ${said.join(', ')}`] : [];
  for (const d of b.diverged) lines.push(`  branch of ${d.id} diverged: ${d.reason}`);
  for (const k of b.kept) lines.push(`  branch of ${k.id} kept: ${k.reason}`);
  return lines;
}

export function renderPush(p: PushResult): string {
  const lines = [
    `push to ${p.remote}: ${n(p.new)} new, ${n(p.updated)} updated, ` +
      `${p.rejected.length} rejected, ${p.skipped.length} skipped, ${p.up_to_date} up to date`,
  ];
  for (const r of p.rejected) lines.push(`  rejected ${r.id}: ${r.reason}`);
  for (const s of p.skipped) lines.push(`  skipped ${s.id} (a pull would refuse it; run lazy doctor): ${s.reason}`);
  lines.push(...pushedBranches(p.branches));
  if (p.archived.length || p.archived_on_remote.length)
    lines.push(`  archived first: ${p.archived.length} task(s); retired on the remote: ${p.archived_on_remote.length}`);
  return lines.join('\n');
}

export function renderSync(s: SyncResult): string {
  const rounds = s.rounds > 1 ? `\n(${s.rounds} rounds: a push was rejected and retried)` : '';
  return `${renderPull(s.pull)}\n${renderPush(s.push)}${rounds}`;
}

function pushedBranches(b: PushResult['branches']): string[] {
  const said = [
    `${b.new.length} new`,
    `${b.pushed.length} updated`,
    `${b.deleted.length} deleted`,
    ...(b.diverged.length ? [`${b.diverged.length} diverged`] : []),
    ...(b.lease_failed.length ? [`${b.lease_failed.length} not deleted`] : []),
    ...(b.refused.length ? [`${b.refused.length} refused`] : []),
    ...(b.behind.length ? [`${b.behind.length} behind the remote`] : []),
    `${b.up_to_date} up to date`,
  ];
  const lines = [`  branches: ${said.join(', ')}`];
  for (const r of [...b.diverged, ...b.lease_failed, ...b.refused, ...b.skipped])
    lines.push(`  branch of ${r.id}: ${r.reason}`);
  return lines;
}

export function renderArchive(a: ArchiveOutcome): string {
  const lines = [
    `archived ${a.archived.length} task(s) finished more than ${a.older_than_days} day(s) ago` +
      (a.shards.length ? ` (${a.shards.length} archive ref(s) moved)` : ''),
  ];
  if (a.unarchived.length) lines.push(`  back live, dropped from the archive: ${a.unarchived.join(', ')}`);
  return lines.join('\n');
}
