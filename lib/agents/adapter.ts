import type { Json } from '../model/docs.js';
import { classifyCommon, reasonLine, type Classified } from './taxonomy.js';

// One interface for every agent: how to launch and resume it, how to read what it
// prints, and how to classify its failures into the shared vocabulary.

export type AdapterName = 'claude' | 'codex' | 'command';

export interface AgentSpec {
  /** The configured name (claude, codex, or any name under agents.<name>). */
  name: string;
  adapter: AdapterName;
  /** Executable and fixed arguments, already split. */
  command: string[];
  permissionMode?: string;
  /** The interactive command for `lazy pair`, already split. */
  interactive?: string[];
}

export interface TurnInput {
  prompt: string;
  /** The agent's own session id to resume, when one is known. */
  sessionId: string | null;
  /** ask turns are read-only where the agent supports it. */
  mode: 'work' | 'ask';
}

/** What an adapter learned from the output stream so far. */
export interface StreamState {
  sessionId?: string;
  result?: string;
  isError?: boolean;
  errorText?: string;
  apiStatus?: number;
  usage?: { [k: string]: Json };
  costUsd?: number;
  /** The last in-stream retry the CLI reported (it is retrying on its own). */
  retry?: { message: string; count: number };
}

export type LineKind = 'progress' | 'retry';

export interface Adapter {
  argv(spec: AgentSpec, input: TurnInput): string[];
  /** Folds one output line into the state; retry lines are not progress for the watchdog. */
  parseLine(line: string, state: StreamState): LineKind;
  classify(x: FailureInput): Classified;
  /** The resume target no longer exists (another HOME or machine): start a fresh session. */
  sessionMissing(x: FailureInput): boolean;
  /** The result text of a successful turn, before any envelope. */
  resultText(state: StreamState, tail: string): string | undefined;
}

export interface FailureInput { exitCode: number | null; signal: string | null; state: StreamState; tail: string }

/** Parses a JSON line, or undefined for anything else (CLIs mix in plain text). */
export function jsonLine(line: string): Record<string, any> | undefined {
  const s = line.trim();
  if (!s.startsWith('{')) return undefined;
  try { return JSON.parse(s) as Record<string, any>; } catch { return undefined; }
}

/** Classifies from the shared signals, with a readable reason. */
export function commonClassify(text: string, fallback: string): Classified {
  return { cls: classifyCommon(text), reason: reasonLine(text, fallback) };
}

export const MAX_SUMMARY_BYTES = 4096;

/** The last 4,096 bytes of output, cut at a line boundary and marked when cut. */
export function tailSummary(output: string): string {
  const buf = Buffer.from(output.trimEnd(), 'utf8');
  if (buf.length <= MAX_SUMMARY_BYTES) return buf.toString('utf8');
  let start = buf.length - MAX_SUMMARY_BYTES;
  const nl = buf.indexOf(10, start);
  if (nl >= 0 && nl < buf.length - 1) start = nl + 1;
  return `[… ${start} earlier bytes of output omitted]\n${buf.subarray(start).toString('utf8')}`;
}
