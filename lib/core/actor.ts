import { git } from './git.js';
import { usageError, gitIdentityMissing } from './errors.js';
import { env } from './env.js';
import { now } from './clock.js';

// Provenance: who pressed the button (the actor channel) and which person's git
// identity the commit is authored with. The actor never gates behaviour, except
// that zombie is reserved for the system actor, and that a subtask an agent accepted
// after its parent's review is no reviewed work for the parent's accept (lib/ops/accept/guard.ts).

export const ACTORS = ['human', 'builder', 'agent', 'system', 'supervisor'] as const;
export type Actor = (typeof ACTORS)[number];

export function envActor(): Actor {
  const raw = env().LAZY_ACTOR?.trim();
  if (!raw) return 'human';
  if (!(ACTORS as readonly string[]).includes(raw)) {
    throw usageError(`LAZY_ACTOR must be one of ${ACTORS.join(', ')} (got '${raw}')`);
  }
  return raw as Actor;
}

export interface Person {
  name: string;
  email: string;
}
export interface Signature extends Person {
  timestamp: number;
  timezoneOffset: number;
}

/** The user's git identity, as git itself resolves it (config, includes, environment). */
export async function gitPerson(cwd: string): Promise<Signature> {
  const timestamp = Math.floor(now() / 1000);
  const fromEnv = envPerson();
  if (fromEnv) return { ...fromEnv, timestamp, timezoneOffset: new Date(timestamp * 1000).getTimezoneOffset() };
  const r = await git(['var', 'GIT_AUTHOR_IDENT'], { cwd, allowFail: true });
  const m = /^(.*) <(.*)> (\d+) ([+-])(\d\d)(\d\d)$/.exec(r.stdout.trim());
  if (r.code !== 0 || !m) {
    throw gitIdentityMissing(
      'git has no author identity: set user.name and user.email (git config --global user.name "…")',
      { stderr: r.stderr.trim() },
    );
  }
  const offset = (Number(m[5]) * 60 + Number(m[6])) * (m[4] === '-' ? 1 : -1);
  return { name: m[1]!, email: m[2]!, timestamp, timezoneOffset: offset };
}

/**
 * GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL, when both are set: git takes them before any config, so asking it
 * (a process per commit) is needed only otherwise. A value git would clean up (crud at either end, or '<',
 * '>' or a newline inside) is left to git, which cleans it its own way.
 */
function envPerson(): Person | null {
  const { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_AUTHOR_DATE: date } = env();
  // A date of its own may carry another timezone than this machine's: git reads it.
  return name && email && !date && clean(name) && clean(email) ? { name, email } : null;
}
/** git's "crud" (ident.c): what it strips from either end of a name or an email. */
const crud = (c: string) => c <= ' ' || '.,:;<>"\\\''.includes(c);
const clean = (s: string) => !crud(s[0]!) && !crud(s.at(-1)!) && !/[<>\n]/.test(s);
