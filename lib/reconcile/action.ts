/** One thing a reconcile pass did to a task (reconcile.ts and the merged-branch sweep both report them). */
export interface ReconcileAction {
  task: string;
  action: string;
  detail: string;
  warn?: boolean;
}
