import { readFileSync, writeFileSync } from 'node:fs';

// A stop the run's own claim asked for (lib/fleet/keeper.ts), written to the run's stop file where
// `lazy stop` writes a timestamp: the agent ends the same way, but the turn is no person's stop.
// `lost`: another worker holds the task now, so this run records nothing; otherwise its lease could
// not be renewed in time and the turn ends interrupted (resumable, and not counted as a crash).

export interface ClaimStop {
  claim: string;
  lost: boolean;
}

export function writeClaimStop(path: string, s: ClaimStop): void {
  writeFileSync(path, JSON.stringify(s));
}

export function readClaimStop(path: string): ClaimStop | null {
  try {
    const o = JSON.parse(readFileSync(path, 'utf8')) as ClaimStop;
    return o && typeof o.claim === 'string' ? { claim: o.claim, lost: o.lost === true } : null;
  } catch {
    return null;
  }
}
