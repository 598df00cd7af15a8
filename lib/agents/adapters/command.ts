import type { Adapter, FailureInput } from './adapter.js';
import { tailSummary, unknownFailure } from './adapter.js';
import type { Classified, FailureClass } from './taxonomy.js';

// Any executable: the configured command line split like a shell would (never run by
// one), with the prompt as its last argument. It talks back through $LAZY_RESULT.
// A failed command agent is classified only from its last non-empty line of output, and
// only when that line is one of the documented `lazy-error:` lines (docs/agents.md);
// anything else it printed, however alarming, is unknown and retried.

const FINAL: [string, FailureClass][] = [
  ['auth', 'fatal_auth'],
  ['config', 'fatal_config'],
  ['rate-limit', 'transient_overload'],
  ['network', 'transient_network'],
  ['unreachable', 'transient_unreachable'],
  ['usage-limit', 'usage_limit'],
];
/** `lazy-error: <kind>[ resets=<ISO 8601>][: <reason>]`, the whole line. */
const LINE = /^lazy-error: ([a-z-]+)(?: resets=(\S+))?(?:: (.+))?$/;

export function classifyFinalLine(x: FailureInput): Classified {
  const last =
    x.tail
      .split('\n')
      .map((l) => l.trimEnd())
      .filter(Boolean)
      .at(-1) ?? '';
  const m = LINE.exec(last);
  const cls = m ? FINAL.find(([k]) => k === m[1])?.[1] : undefined;
  if (!m || !cls || (m[2] !== undefined && cls !== 'usage_limit')) return unknownFailure(x);
  const reason = (m[3] ?? m[1]!).slice(0, 300);
  if (m[2] === undefined) return { cls, reason };
  const at = /^\d{4}-\d{2}-\d{2}T/.test(m[2]) ? Date.parse(m[2]) : NaN;
  return Number.isNaN(at) ? unknownFailure(x) : { cls, reason, resetAt: new Date(at).toISOString() };
}

export const command: Adapter = {
  argv(spec, input) {
    return [...spec.command, input.prompt];
  },
  parseLine() {
    return 'progress';
  },
  // A command agent speaks no dialect: its lines are shown as it wrote them.
  events(line) {
    return [{ kind: 'raw', line }];
  },
  classify: classifyFinalLine,
  sessionMissing() {
    return false;
  },
  resultText(_state, tail) {
    return tail.trim() ? tailSummary(tail) : undefined;
  },
};
