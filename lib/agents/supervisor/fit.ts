import { MAX_DOCUMENT_BYTES, encodeYaml } from '../../store/yaml.js';
import { textBytes } from '../../store/validate.js';
import type { Json } from '../../core/json.js';
import type { Outcome } from './outcome/types.js';

// What an agent reports (its summary, question, risks and commands, the files its commits
// touched, its log's last lines) is stored in the turn that records its run. A person's text
// over the limit is refused before anything is written; an agent's cannot be, since the turn
// must be recorded however long its report: it is cut, and the record says so.

/** What the turn's report may take of one stored document; the rest is for the turn's own fields. */
export const OUTCOME_BUDGET = (MAX_DOCUMENT_BYTES * 3) / 4;
/** The most of one text (or one list) kept at the first cut: the envelope schema's limit on a summary. */
const FIRST_CAP = 64 * 1024;
/** The last cut: at this, the whole report is a few tens of KB, whatever its escapes cost. */
const LAST_CAP = 1024;

/** The report as its turn stores it (the text, and the outcome's fields under details), encoded; bytes. */
function measure(o: Outcome, text: (o: Outcome) => string): number {
  const doc = JSON.parse(JSON.stringify({ content: text(o), details: o })) as { [k: string]: Json };
  // Never encoded when its text alone is too much: the encoder is not handed megabytes.
  const least = textBytes(doc);
  return least > OUTCOME_BUDGET ? least : Buffer.byteLength(encodeYaml(doc), 'utf8');
}

interface Cuts {
  cap: number;
  texts: number;
  entries: number;
}

/** At most `cap` bytes of a text, ending on a whole character, with a note of what was cut. */
function cutText(s: string, c: Cuts): string {
  const bytes = Buffer.byteLength(s, 'utf8');
  if (bytes <= c.cap) return s;
  c.texts++;
  const kept = Buffer.from(s, 'utf8')
    .subarray(0, c.cap)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${kept}… [cut by lazy: ${Buffer.byteLength(kept, 'utf8')} of ${bytes} bytes kept]`;
}

function cut(v: unknown, c: Cuts): unknown {
  if (typeof v === 'string') return cutText(v, c);
  if (Array.isArray(v)) {
    // A list keeps its first entries, `cap` bytes of text in all; a list of texts says what it left out.
    const kept: unknown[] = [];
    let used = 0;
    for (const x of v) {
      const y = cut(x, c);
      used += textBytes(y);
      if (kept.length && used > c.cap) break;
      kept.push(y);
    }
    const left = v.length - kept.length;
    if (!left) return kept;
    c.entries += left;
    return v.every((x) => typeof x === 'string') ? [...kept, `… [${left} more left out by lazy]`] : kept;
  }
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x, c)]));
  return v;
}

/**
 * The outcome with its texts and lists cut until its turn fits the budget, the summary ending
 * with a note of the cut; the outcome itself when it fits already (almost always).
 */
export function fitOutcome(o: Outcome, text: (o: Outcome) => string): Outcome {
  if (measure(o, text) <= OUTCOME_BUDGET) return o;
  for (let cap = FIRST_CAP; ; cap /= 2) {
    const c: Cuts = { cap, texts: 0, entries: 0 };
    const fitted = cut(o, c) as Outcome;
    const note =
      `[lazy shortened this report to fit a stored document (${MAX_DOCUMENT_BYTES} bytes): ` +
      `${c.texts} text(s) cut to ${cap} bytes, ${c.entries} list entr${c.entries === 1 ? 'y' : 'ies'} left out]`;
    fitted.summary = `${fitted.summary}\n\n${note}`;
    if (cap <= LAST_CAP || measure(fitted, text) <= OUTCOME_BUDGET) return fitted;
  }
}
