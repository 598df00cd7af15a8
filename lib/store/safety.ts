import type { Json } from '../core/json.js';
import type { Config } from './config/doc.js';

// Safety settings: what a shared config arriving from a remote may not weaken until this
// clone runs `lazy config trust`. The one list of them is here. `protected` may grow at
// once (more protection is safer) but a glob it loses (a changed glob is a removal plus
// an addition) stays protected; a limit on how long or how often an agent runs, or how it
// is killed, keeps its trusted value when the shared one differs in either direction (a
// tiny watchdog kills every agent, a huge one never fires).

export const SAFETY_LIMITS = [
  'watchdog_ms',
  'stop_grace_ms',
  'retry_base_ms',
  'retry_transient_max',
  'retry_unreachable_max',
  'crash_window_ms',
  'usage_limit_recheck_ms',
  'usage_limit_max_wait_ms',
] as const;
export type SafetyLimit = (typeof SAFETY_LIMITS)[number];
export const isSafetyKey = (key: string) => key === 'protected' || (SAFETY_LIMITS as readonly string[]).includes(key);

/** The safety settings of a config, as recorded when this clone trusts them. */
export interface Safety {
  protected: string[];
  limits: Partial<Record<SafetyLimit, number>>;
}

export interface HeldBack {
  key: string;
  shared: Json | null;
  in_effect: Json | null;
  reason: string;
}

export function safetyOf(c: Config): Safety {
  const limits: Safety['limits'] = {};
  for (const k of SAFETY_LIMITS) if (c[k] !== undefined) limits[k] = c[k];
  return { protected: [...(c.protected ?? [])], limits };
}

/** `s` with one key taken from `c` (a setting this clone wrote itself). */
export function withKey(s: Safety, c: Config, key: string): Safety {
  if (key === 'protected') return { ...s, protected: [...(c.protected ?? [])] };
  const limits = { ...s.limits };
  const k = key as SafetyLimit;
  if (c[k] === undefined) delete limits[k];
  else limits[k] = c[k];
  return { ...s, limits };
}

export const union = (...lists: (readonly string[] | undefined)[]) => [...new Set(lists.flatMap((l) => l ?? []))];

/**
 * The shared config as this clone obeys it, and what is held back. With nothing recorded
 * (no pull or shared write since this clone began recording), the shared config is what
 * this clone already obeyed: nothing is held back.
 */
export function applySafety(shared: Config, trusted: Safety | undefined): { effective: Config; held: HeldBack[] } {
  if (!trusted) return { effective: shared, held: [] };
  const out: Config = { ...shared };
  const held: HeldBack[] = [];
  const removed = trusted.protected.filter((g) => !(shared.protected ?? []).includes(g));
  if (removed.length) {
    out.protected = union(shared.protected, trusted.protected);
    held.push({
      key: 'protected',
      shared: shared.protected ?? null,
      in_effect: out.protected,
      reason:
        `the shared config drops ${removed.map((g) => `'${g}'`).join(', ')} from protected; ` +
        `still protected until lazy config trust`,
    });
  }
  for (const k of SAFETY_LIMITS) {
    const mine = trusted.limits[k];
    if (shared[k] === mine) continue;
    if (mine === undefined) delete out[k];
    else out[k] = mine;
    held.push({
      key: k,
      shared: shared[k] ?? null,
      in_effect: mine ?? null,
      reason:
        `a shared change to a safety limit (${mine ?? 'the default'} → ${shared[k] ?? 'the default'}) ` +
        `is not applied until lazy config trust`,
    });
  }
  return { effective: out, held };
}
