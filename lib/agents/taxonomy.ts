// The closed vocabulary of agent failures. Each adapter maps its own dialect onto it;
// shared HTTP and socket signals live here. A wrong fatal_* blocks work that would have
// recovered, so anything unrecognised is unknown, never a guess.

export const FAILURE_CLASSES = ['fatal_auth', 'fatal_config', 'transient_overload', 'transient_network', 'transient_unreachable', 'unknown'] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

export interface Classified { cls: FailureClass; reason: string }

const SIGNALS: [FailureClass, RegExp][] = [
  ['fatal_auth', /not logged in|please run \/login|invalid api key|authentication[_ ]failed|\b401\b|unauthori[sz]ed|insufficient_quota|quota exceeded|billing|\b403\b.*forbidden/i],
  ['transient_overload', /\b529\b|overloaded|at capacity|\b429\b|rate[_ -]?limit|too many requests|usage limit|\b503\b|service unavailable|\b502\b|bad gateway/i],
  ['transient_unreachable', /econnrefused|connection refused|unable to connect/i],
  ['transient_network', /timed? ?out|etimedout|econnreset|eai_again|enotfound|name does not resolve|lookup address|socket hang up|network|stream disconnected|epipe/i],
];

/** Matches the shared signals against whatever text a failure produced. */
export function classifyCommon(text: string): FailureClass {
  for (const [cls, re] of SIGNALS) if (re.test(text)) return cls;
  return 'unknown';
}

/** The first line that looks like the failure, for the recorded reason. */
export function reasonLine(text: string, fallback: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const hit = lines.find((l) => SIGNALS.some(([, re]) => re.test(l)));
  const line = hit ?? lines.at(-1) ?? fallback;
  return line.length > 300 ? line.slice(0, 299) + '…' : line;
}
