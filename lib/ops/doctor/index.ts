import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { reportPinnedClaims } from './leases.js';
import { LazyError } from '../../core/errors.js';
import { git } from '../../core/git.js';
import { foldTask } from '../../model/fold.js';
import { listTaskRefs, type RefTip } from '../../store/refs.js';
import { listLocks, removeLock } from '../../core/lock.js';
import { refreshIndex } from '../../store/listing/index.js';
import type { App } from '../app.js';
import { missingRefspecs } from '../../sync/remote.js';
import type { TaskView } from '../../model/fold.js';
import type { TaskDocs } from '../../model/docs.js';
import { repairDeadMarkers } from './markers.js';
import { repairLateAccepts } from './late.js';
import {
  repairAcceptLeftovers,
  repairConfigRef,
  repairStuckTurns,
  repairTaskRefs,
  reportAcceptStashes,
  reportLostBranches,
} from './repair.js';
import type { Finding, Pass } from './pass.js';
import { fileSystemNow } from '../../core/clock.js';
import { LOOSE_REFS_MAX, looseTaskRefs, packWhenLoose } from '../../store/packed.js';
import { probeAgents, reportAgents } from './agents.js';
import { repairSummaries } from './summaries.js';
import { repairArchive } from './archived.js';
import type { AgentFound } from '../../agents/inventory.js';

export interface DoctorReport {
  healthy: boolean;
  tasks: number;
  findings: Finding[];
  fixed: string[];
  /** The agents this clone could run: the built-in names and every configured one. */
  agents: AgentFound[];
}

/** Validates every task ref, then looks for leftovers. Healthy means no error-level finding. */
export async function doctor(app: App, opts: { fix?: boolean } = {}): Promise<DoctorReport> {
  const findings: Finding[] = [];
  const fixed: string[] = [];
  const pass: Pass = { app, fix: !!opts.fix, findings, fixed };
  const refs = await listTaskRefs(app.repo.cwd);
  const agents = probeAgents(pass);
  agents.catch(() => {}); // awaited below: a failure surfaces there, not as an unhandled rejection meanwhile
  const { bad, views } = await readTasks(pass, refs);

  await repairTaskRefs(pass, refs, bad);
  await repairConfigRef(pass);
  await repairStuckTurns(pass, views);
  await repairAcceptLeftovers(pass, views);
  await repairLateAccepts(pass, views);
  await reportAcceptStashes(pass);
  await reportLostBranches(pass, views);
  await repairDeadMarkers(pass, views, new Set(bad.keys()));
  await repairSummaries(pass, views);
  await repairArchive(pass, refs);

  reportLocks(pass);
  removeStrayTemps(pass);
  await packLooseRefs(pass);
  const remotes = (await git(['remote'], { cwd: app.repo.cwd })).stdout.split('\n').filter(Boolean);
  await reportMissingRefspecs(pass, remotes);
  await reportPinnedClaims(pass, views, remotes);

  await refreshIndex(app.repo.cwd, app.repo.lazyDir, app.store.reader);
  const found = reportAgents(pass, await agents);
  return { healthy: !findings.some((f) => f.level === 'error'), tasks: refs.length, findings, fixed, agents: found };
}

/** Every task ref folded and checked on its own; the refs that do not read are handed back, for repairTaskRefs. */
async function readTasks({ app, findings }: Pass, refs: RefTip[]) {
  const read = await app.store.reader.readMany(refs);
  const ids = new Set(refs.map((r) => r.id));
  const bad = new Map<string, LazyError>();
  const views: TaskView[] = [];
  for (const r of refs) {
    const res = read.get(r.id)!;
    if (res instanceof LazyError) {
      bad.set(r.id, res);
      continue;
    }
    const v = foldTask(res.docs);
    views.push(v);
    checkTask(findings, v, res.docs, ids);
  }
  return { bad, views };
}

/** What one task's own documents can show: a missing parent, open sessions, dangling consumes, set-aside changes. */
function checkTask(findings: Finding[], v: TaskView, docs: TaskDocs, ids: Set<string>): void {
  if (v.parent && !ids.has(v.parent)) {
    findings.push({
      level: 'warning',
      code: 'missing_parent',
      message: `task ${v.id} names parent ${v.parent}, which does not exist here`,
      details: { task: v.id, parent: v.parent },
    });
  }
  const open = v.sessions.filter((s) => s.ended_at === null);
  if (open.length > 1)
    findings.push({
      level: 'info',
      code: 'open_sessions',
      message:
        `task ${v.id} has ${open.length} open sessions ` +
        `(started concurrently on two clones; ${v.session?.id} is in use)`,
      details: { task: v.id },
    });
  const turnIds = new Set(v.turns.map((t) => t.id));
  const dangling = docs.turns.flatMap((t) => (t.consumes ?? []).filter((c) => !turnIds.has(c)));
  if (dangling.length)
    findings.push({
      level: 'error',
      code: 'dangling_consumes',
      message: `task ${v.id} consumes turns that do not exist: ${dangling.join(', ')}`,
      details: { task: v.id },
    });
  if (v.concurrent_changes.length) {
    findings.push({
      level: 'info',
      code: 'concurrent_change',
      message: `task ${v.id} had ${v.concurrent_changes.length} concurrent status change(s) set aside by a merge`,
      details: { task: v.id },
    });
  }
  if (v.status === 'merging') {
    findings.push({
      level: 'warning',
      code: 'merging',
      message: `task ${v.id} is in merging`,
      details: { task: v.id },
    });
  }
}

/** Stale locks (removed with fix) and locks held now. */
function reportLocks({ app, fix, findings, fixed }: Pass): void {
  for (const l of listLocks(app.repo.lazyDir)) {
    if (l.state === 'stale') {
      // Every command's reconcile clears these first (clearStaleLocks): one found here went stale since.
      if (fix) {
        if (removeLock(app.repo.lazyDir, l)) fixed.push(`removed stale lock ${l.path}`);
        continue;
      }
      const owner = l.owner ? `pid ${l.owner.pid} on ${l.owner.host}` : 'unknown';
      findings.push({
        level: 'warning',
        code: 'stale_lock',
        message: `stale lock on ${l.name} (owner ${owner}, ${Math.round(l.age_ms / 1000)} s old)`,
        details: { lock: l.path, owner: l.owner },
      });
    } else {
      findings.push({
        level: 'info',
        code: 'lock_held',
        message: `lock on ${l.name} is held by pid ${l.owner?.pid ?? '?'}`,
        details: { lock: l.path },
      });
    }
  }
}

/** Half-written object files an interrupted write left (removed with fix). */
function removeStrayTemps({ app, fix, findings, fixed }: Pass): void {
  const temps = strayObjectTemps(app.repo.commonDir);
  if (temps.length) {
    if (fix) {
      for (const t of temps) rmSync(t, { force: true });
      fixed.push(`removed ${temps.length} half-written object file(s) older than ${TEMP_AGE_MS / 60_000} min`);
    } else
      findings.push({
        level: 'warning',
        code: 'stray_temp_objects',
        message: `${temps.length} half-written object file(s) left by an interrupted write`,
        details: { files: temps.slice(0, 20) },
      });
  }
}

/** Many loose task refs slow listing down (packed with fix, by the code writing commands pack with). */
async function packLooseRefs({ app, fix, findings, fixed }: Pass): Promise<void> {
  const loose = looseTaskRefs(app.repo.commonDir);
  if (loose > LOOSE_REFS_MAX) {
    if (fix) {
      if (await packWhenLoose(app.repo)) fixed.push(`packed ${loose} loose refs`);
    } else
      findings.push({
        level: 'info',
        code: 'loose_refs',
        message: `${loose} loose task refs slow down listing; lazy doctor --fix packs them`,
        details: { loose },
      });
  }
}

/** Remotes plain git will not carry tasks to or from (lazy's own commands still do). */
async function reportMissingRefspecs({ app, findings }: Pass, remotes: string[]): Promise<void> {
  for (const remote of remotes) {
    const missing = await missingRefspecs(app.repo, remote);
    if (missing.fetch || missing.push) {
      const ways = [missing.fetch && 'fetch', missing.push && 'push'].filter(Boolean).join(' and ');
      findings.push({
        level: 'info',
        code: 'missing_refspecs',
        message:
          `remote ${remote}: plain git ${ways} will not carry tasks; ` +
          `lazy pull/push/sync still do (lazy init --remote ${remote} adds the refspecs)`,
        details: { remote, ...missing },
      });
    }
  }
}

/** A temporary object this old belongs to no live writer (an object write takes milliseconds). */
const TEMP_AGE_MS = 10 * 60_000;

/** Half-written loose objects: lazy's (tmp_obj_*, and .tmp-* from before) and git's own. */
function strayObjectTemps(commonDir: string): string[] {
  const out: string[] = [];
  const objects = join(commonDir, 'objects');
  let dirs: string[] = [];
  try {
    dirs = readdirSync(objects).filter((d) => /^[0-9a-f]{2}$/.test(d));
  } catch {
    return out;
  }
  const cutoff = fileSystemNow() - TEMP_AGE_MS; // git stamped these files
  for (const d of ['', ...dirs]) {
    for (const f of readdirSync(join(objects, d))) {
      if (!f.includes('.tmp-') && !f.startsWith('tmp_obj_')) continue;
      const p = join(objects, d, f);
      try {
        if (statSync(p).mtimeMs < cutoff) out.push(p);
      } catch {
        /* gone */
      }
    }
  }
  return out;
}
