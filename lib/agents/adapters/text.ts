// Text helpers the adapters share when they turn a CLI's event into a readable line.

/** The last non-empty line of a text (a command's output ends with its verdict), else ''. */
export const lastLine = (s: unknown): string =>
  typeof s === 'string'
    ? (s
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .at(-1) ?? '')
    : '';
