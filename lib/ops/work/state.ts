import { foldTask, type TaskView } from '../../model/fold.js';
import { LazyError } from '../../core/errors.js';
import { listTaskRefs } from '../../store/refs.js';
import type { Store } from '../../store/store.js';
import { readLeases, type Lease } from '../../fleet/lease.js';
import { branchRef, taskRef } from '../../core/names.js';

// What a worker knows between pulls: every local task's view (re-read only when its tip
// moved) and the remote's tips and leases as the last pull saw them.

export class Known {
  private views = new Map<string, TaskView>();
  private leaseDocs = new Map<string, Lease['doc']>();
  tips = new Map<string, string>();
  leases = new Map<string, Lease>();
  /** Tasks the last pull refused: never claimed until a pull takes them. */
  refused = new Set<string>();

  constructor(private readonly store: Store) {}

  all(): Iterable<TaskView> {
    return this.views.values();
  }

  remoteTask = (id: string) => this.tips.get(taskRef(id)) ?? null;
  remoteBranch = (id: string) => this.tips.get(branchRef(id)) ?? null;

  /** After a pull: re-reads the tasks whose tips moved, and the leases the remote holds. */
  async refresh(tips: Map<string, string>, refused: string[]): Promise<void> {
    this.tips = tips;
    this.refused = new Set(refused);
    const refs = await listTaskRefs(this.store.repo.cwd);
    const here = new Set(refs.map((r) => r.id));
    for (const id of [...this.views.keys()]) if (!here.has(id)) this.views.delete(id);
    const stale = refs.filter((r) => this.views.get(r.id)?.tip !== r.tip);
    const read = await this.store.reader.readMany(stale);
    for (const [id, r] of read) if (!(r instanceof LazyError)) this.views.set(id, foldTask(r.docs));
    this.leases = await readLeases(this.store.reader.objects, tips, this.leaseDocs);
  }

  private skips = new Map<string, string>();

  /** Leaves a task out of the picks until its tip moves. */
  skip(id: string): void {
    const tip = this.views.get(id)?.tip;
    if (tip) this.skips.set(id, tip);
  }

  skipped(): string[] {
    return [...this.skips].filter(([id, tip]) => this.views.get(id)?.tip === tip).map(([id]) => id);
  }

  set(v: TaskView): void {
    this.views.set(v.id, v);
  }

  /** Candidates are tasks the remote knows (the claim is a compare-and-swap there) that the last pull took. */
  claimable(): TaskView[] {
    return [...this.views.values()].filter((v) => !this.refused.has(v.id) && this.tips.has(taskRef(v.id)));
  }
}
