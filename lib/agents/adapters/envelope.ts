import { readBoundedFile, ReadRefused } from '../../core/fsutil.js';
import { envelope as validateEnvelope } from '#validators';

// The result envelope an agent may write to $LAZY_RESULT. A malformed one is evidence
// the agent drifted from its contract: it is never taken for a completed turn.

export interface Envelope {
  status: 'completed' | 'decision_required' | 'blocked';
  summary: string;
  question?: string;
  risks?: string[];
  commands?: { command: string; exit_code: number }[];
}

export type EnvelopeRead =
  { kind: 'absent' } | { kind: 'ok'; envelope: Envelope } | { kind: 'malformed'; error: string };

const MAX_BYTES = 1024 * 1024;

export function parseEnvelope(text: string): EnvelopeRead {
  if (Buffer.byteLength(text) > MAX_BYTES)
    return { kind: 'malformed', error: `envelope is larger than ${MAX_BYTES} bytes` };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { kind: 'malformed', error: `envelope is not JSON: ${(e as Error).message}` };
  }
  if (!validateEnvelope(doc)) {
    const err = validateEnvelope.errors?.[0];
    return {
      kind: 'malformed',
      error: `envelope fails its schema at ${err?.instancePath || '/'}: ${err?.message ?? 'invalid'}`,
    };
  }
  return { kind: 'ok', envelope: doc as Envelope };
}

export function readEnvelope(path: string): EnvelopeRead {
  let text: string;
  try {
    text = readBoundedFile(path, MAX_BYTES, 'the result envelope').toString('utf8');
  } catch (e) {
    return e instanceof ReadRefused ? { kind: 'malformed', error: e.message } : { kind: 'absent' };
  }
  return parseEnvelope(text);
}
