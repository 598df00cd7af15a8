/** A JSON value: what stored documents, error details and agent envelopes are made of. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
