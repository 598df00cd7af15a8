// The orders list and inbox accept (--sort): a module of its own so the command parser loads no query code.
export const SORTS = ['created', 'updated', 'priority'] as const;
export type Sort = (typeof SORTS)[number];
