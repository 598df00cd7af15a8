// The settings document's shape (config.yaml: shared in refs/lazy/config, per clone in
// .git/lazy/config.yaml). Its reader (index.ts), ../trust.ts and ../safety.ts all name it; it
// lives apart so that none of them imports another back.

export type Config = {
  agent?: string;
  agents?: Record<
    string,
    {
      command?: string;
      adapter?: 'claude' | 'codex' | 'command' | 'gemini' | 'opencode' | 'pi';
      args?: string;
      permission_mode?: string;
      interactive?: string;
      /** The model this agent runs with unless the task names one (its CLI's default when neither does). */
      model?: string;
    }
  >;
  protected?: string[];
  worktree_dir?: string;
  watchdog_ms?: number;
  stop_grace_ms?: number;
  retry_base_ms?: number;
  retry_unreachable_max?: number;
  retry_transient_max?: number;
  crash_window_ms?: number;
  usage_limit_recheck_ms?: number;
  usage_limit_max_wait_ms?: number;
  /** Wire lazy's MCP server into every agent launch (default true). */
  mcp?: boolean;
  /** The hand-off to a forge: pr_command is run by lazy submit (a command line, like an agent's). */
  forge?: { pr_command?: string };
  /** lazy archive (and push, sync): finished tasks last changed more than after_days ago leave refs/lazy/tasks/*. */
  archive?: { after_days?: number; on_push?: boolean };
  /** The fleet worker (lazy work): how long a claim's lease lasts before another worker may take it over. */
  work?: { lease_seconds?: number };
  /** What a task may spend before it launches another turn, and the repository's daily cap on auto-resumes. */
  budget?: { task_tokens?: number; task_cost_usd?: number; auto_resumes_per_day?: number };
  /** US dollars per million tokens, by model: what a turn whose agent reports no cost cost (lib/model/pricing.ts). */
  pricing?: Record<string, { input?: number; output?: number; cache_read?: number; cache_write?: number }>;
  /** In a merged read only: a shared forge.pr_command this clone has not trusted. */
  untrusted_pr_command?: boolean;
  /** In a merged read only: agents defined by shared settings this clone has not trusted. */
  untrusted?: string[];
};
