import type { App } from '../app.js';

// One doctor pass, shared by its checks (index.ts, repair.ts, markers.ts):
// what they report and repair into, apart from them so none imports another back.

export interface Finding {
  level: 'error' | 'warning' | 'info';
  code: string;
  message: string;
  details: Record<string, unknown>;
}

export interface Pass {
  app: App;
  fix: boolean;
  findings: Finding[];
  fixed: string[];
}

/** Nothing resumes a turn doctor ended: the task waits in the inbox for a human. */
export const HELD = 'its turn was lost (marked interrupted by lazy doctor): lazy resume continues it';
