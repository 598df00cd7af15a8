// The page's one reader of the clock and setter of timers, as lib/core/clock.ts is the CLI's: the rest of the page
// asks here, so time stays in one place (and the architecture test has one browser file to allow).

export const now = (): number => Date.now();

/** Runs `f` once after `ms`; the handle cancels it. */
export const after = (ms: number, f: () => void): number => window.setTimeout(f, ms);

/** Runs `f` every `ms`; the handle cancels it. */
export const every = (ms: number, f: () => void): number => window.setInterval(f, ms);

export const cancel = (handle: number | undefined): void => window.clearTimeout(handle);
