// The page's time and timers, in one place as lib/core/clock.ts is the CLI's. The page reads no clock of its own:
// its "now" is the serving command's (the port's, so a test that moves lazy's clock moves the page's), given in the
// shell (meta lazy-now) and again by the event stream (each change, and a `time` event every 30 s).

let heard = Number(document.querySelector<HTMLMetaElement>('meta[name="lazy-now"]')?.content) || 0;

/** The serving command's time as last heard. */
export const now = (): number => heard;

/** The server said the time (an event's `at`): it only moves forward. */
export function hear(at: unknown): void {
  if (typeof at === 'number' && Number.isFinite(at) && at > heard) heard = at;
}

/** Runs `f` once after `ms`; the handle cancels it. */
export const after = (ms: number, f: () => void): number => window.setTimeout(f, ms);

export const cancel = (handle: number | undefined): void => window.clearTimeout(handle);
