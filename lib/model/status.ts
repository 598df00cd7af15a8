// The eleven statuses and their three categories. Categories drive guards elsewhere:
// terminal tasks are frozen, blocked ones wait for a human, active ones own a live
// worktree that nothing may be merged into. submitted waits on a forge (a pull request
// is open), so it belongs to none: neither a person here nor a process owns it.

export const STATUSES = [
  'backlog',
  'working',
  'blocked',
  'conflict',
  'submitted',
  'pairing',
  'interrupted',
  'merging',
  'zombie',
  'complete',
  'abandoned',
] as const;
export type Status = (typeof STATUSES)[number];

export const TERMINAL: readonly Status[] = ['complete', 'abandoned'];
export const BLOCKED: readonly Status[] = ['blocked', 'conflict'];
export const ACTIVE: readonly Status[] = ['working', 'interrupted', 'pairing', 'merging'];

export type Category = 'terminal' | 'blocked' | 'active';

/** backlog, submitted and zombie belong to no category. */
export function categoryOf(s: Status): Category | null {
  if (TERMINAL.includes(s)) return 'terminal';
  if (BLOCKED.includes(s)) return 'blocked';
  if (ACTIVE.includes(s)) return 'active';
  return null;
}

export const isTerminal = (s: Status) => TERMINAL.includes(s);
export const isActive = (s: Status) => ACTIVE.includes(s);
export const isStatus = (s: unknown): s is Status => (STATUSES as readonly unknown[]).includes(s);
