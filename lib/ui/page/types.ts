// The shapes the page reads: the CLI's --json output (lib/ops/list.ts, show.ts, inbox.ts, log). Only the fields the
// page shows are named, and most are optional, because the page renders what is there and tolerates the rest absent.

export interface Attention {
  kind: string;
  reason: string;
  since: string;
}

export interface Substate {
  kind: 'agent' | 'waiting_on' | 'retrying' | string;
  text?: string;
  message?: string;
  at?: string;
  task?: string;
  since?: string;
  seconds?: number;
  reason?: string;
  attempt?: number;
  until?: string | null;
}

export interface ActionCondition {
  action: string;
  requires: 'decisions' | 'force' | string;
}

export interface Schedule {
  queued: boolean;
  priority: number;
  paused: boolean;
  not_before?: string | null;
}

export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  cost_usd?: number | null;
}

export interface ListedTask {
  id: string;
  status: string;
  goal: string;
  tags?: string[];
  parent?: string | null;
  attention?: Attention | null;
  available_actions?: string[];
  action_conditions?: ActionCondition[];
  schedule?: Schedule;
  substate?: Substate | null;
  pr_url?: string | null;
  usage?: Usage;
  updated_at?: string;
  created_at?: string;
}

export type InboxItem = Pick<ListedTask, 'id' | 'goal' | 'status' | 'available_actions' | 'action_conditions'> & {
  attention: Attention | null;
};

export interface Board {
  inbox: InboxItem[];
  working: ListedTask[];
  queued: ListedTask[];
  backlog: ListedTask[];
  finished: ListedTask[];
}

export interface ReviewInfo {
  head?: string;
  commits?: number;
  changed_files?: string[];
  diffstat?: string;
}

export interface TurnDetails {
  outcome?: string;
  summary?: string;
  risks?: string[];
  commands?: { command: string; exit_code: number | null }[];
  review?: ReviewInfo | null;
  usage?: Usage;
}

export interface Turn {
  sequence?: number;
  id?: string;
  role: string;
  kind: string;
  actor?: string;
  person?: { name: string } | null;
  content: string;
  timestamp: string;
  feedback?: string | null;
  details?: TurnDetails | null;
}

export interface PendingViolation {
  file?: string;
  path?: string;
  since?: string;
}

/** A command a person ran on the work under review (lazy run): show --json's reviewer_commands. */
export interface ReviewerCommand {
  actor: string;
  person: string | null;
  at: string;
  command: string;
  exit_code: number | null;
  signal: string | null;
}

export interface TaskView extends ListedTask {
  reviewer_commands?: ReviewerCommand[];
  prompt?: string | null;
  acceptance?: string[];
  agent?: string | null;
  model?: string | null;
  base?: string;
  turns?: Turn[];
  pending_violations?: PendingViolation[];
  /** show --json's submission: the pull request's address is `url` (list rows carry it as pr_url). */
  submission?: { url?: string | null; remote?: string; branch?: string } | null;
  branch_sync?: { state: string; ahead: number; behind: number } | null;
}

export interface LogEntry {
  commit: string;
  date?: string;
  time?: string;
  author?: string;
  subject?: string;
  op?: string;
  action?: string;
  actor?: string;
  from?: string | null;
  to?: string | null;
}

export interface DiffDoc {
  branch?: string;
  base?: string;
  text: string;
}
