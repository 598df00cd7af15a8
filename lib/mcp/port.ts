import type { Actor } from '../core/actor.js';
import { aborted, asLazyError } from '../core/errors.js';
import type { Io } from '../core/io.js';
import type { Clock } from '../core/clock.js';
import { errorJson, jsonText } from '../output/emit.js';

// How a tool call talks to the world. Invariant: nothing a tool does reaches stdout, which is
// the MCP channel: results go back as the tool's reply, everything else to stderr.

/** A tool's outcome: the value the CLI's --json prints, and optionally the words the caller reads instead. */
export interface Reply {
  value: unknown;
  text?: string;
  /** The CLI prints this value and exits non-zero (a submit whose PR command failed): a tool error carrying it. */
  failed?: boolean;
}

/** The MCP result of one call (the SDK's CallToolResult shape). */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A sleep the client's going away cuts short: a wait or an ask must not outlive its caller. */
function abortableClock(base: Clock, signal: AbortSignal): Clock {
  const cut = (e: unknown) => {
    throw signal.aborted ? aborted('the MCP client went away or cancelled the call') : e;
  };
  // A caller's own signal (a heartbeat's, an attempt's) still ends its sleep: both cut it short.
  const either = (own?: AbortSignal) => (own ? AbortSignal.any([signal, own]) : signal);
  return {
    now: () => base.now(),
    sleep: (ms, own) => base.sleep(ms, either(own)).catch(cut),
    poll: (ms, own) => base.poll(ms, either(own)).catch(cut),
  };
}

/**
 * The port one tool call runs with: the command's own port with stdout turned away, no person to
 * confirm anything (the call is the consent), and LAZY_ACTOR set so every commit names the actor.
 */
export function callIo(base: Io, actor: Actor, signal: AbortSignal, surface = 'lazy mcp'): Io {
  return {
    ...base,
    out: (t) => base.err(t),
    page: async (t) => base.err(t),
    narrate: (_i, _n, label) => base.err(`${surface}: ${label}\n`),
    isTTY: { stdin: false, stdout: false, stderr: base.isTTY.stderr },
    confirm: () => Promise.resolve(false),
    clock: abortableClock(base.clock, signal),
    env: { ...base.env, LAZY_ACTOR: actor },
    outOpen: () => !signal.aborted,
  };
}

/**
 * The reply as MCP carries it: the text is exactly what `lazy <command> --json` prints; the structured
 * copy is that document, or `{"items": […]}` when the CLI prints an array (MCP wants an object there).
 */
export function okResult(r: Reply, served?: ReadonlySet<string>): ToolResult {
  const doc = servedOnly(JSON.parse(JSON.stringify(r.value ?? null)) as unknown, served);
  const structured = doc && typeof doc === 'object' && !Array.isArray(doc) ? doc : { items: doc };
  return {
    content: [{ type: 'text', text: r.text ?? jsonText(doc) }],
    structuredContent: structured as Record<string, unknown>,
    ...(r.failed ? { isError: true } : {}),
  };
}

/**
 * Every task's available_actions as this surface serves them: only actions it has a tool for (pair needs a
 * terminal). Invariant: an action listed over MCP is one its caller can call here.
 */
export function servedOnly(doc: unknown, served: ReadonlySet<string> | undefined): unknown {
  if (!served || !doc || typeof doc !== 'object') return doc;
  if (Array.isArray(doc)) return doc.map((x) => servedOnly(x, served));
  const o = doc as Record<string, unknown>;
  for (const [k, v] of Object.entries(o))
    o[k] =
      k === 'available_actions' && Array.isArray(v)
        ? v.filter((a) => served.has(String(a)))
        : k === 'action_conditions' && Array.isArray(v)
          ? v.filter((c) => served.has(String((c as { action?: unknown })?.action)))
          : servedOnly(v, served);
  return o;
}

/** A failure as the CLI's --json error document, flagged as a tool error. */
export function errorResult(err: unknown): ToolResult {
  const doc = errorJson(asLazyError(err));
  return { content: [{ type: 'text', text: jsonText(doc) }], structuredContent: doc, isError: true };
}
