import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFileAtomicSync } from '../../../core/fsutil.js';
import type { Env } from '../../../core/env.js';
import type { McpServer } from '../adapter.js';

// The Gemini CLI takes MCP servers and its auth type only from settings files: the user's
// (~/.gemini/settings.json), the project's (<worktree>/.gemini/settings.json) and two system files,
// which it skips unless root owns them and every folder above them (measured with 0.61.0: a file
// under /tmp is skipped as insecure). None of those is lazy's to write. What it does take is
// GEMINI_CLI_HOME, the folder it reads `.gemini` from: each run gets one of its own, whose
// settings.json is the user's with lazy's server added, and whose other entries (credentials,
// GEMINI.md, extensions) are links to the user's own. Sessions (`tmp`, `history`) are links too,
// so a later run resumes what an earlier one recorded, and `gemini --resume` finds it by hand.

/** Entries of the user's gemini folder that hold state every run shares; gemini makes them on first use. */
const SHARED_STATE = ['tmp', 'history'];

const isObject = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The user's own gemini home (where `.gemini` lives), as the CLI itself finds it. */
export const userGeminiHome = (e: Env) => e.GEMINI_CLI_HOME || e.HOME || homedir();

/**
 * The auth type a headless run needs when the settings name none: an API key in the environment
 * means the Gemini API. gemini's own guess from the environment takes GOOGLE_GEMINI_BASE_URL for a
 * "gateway", which headless mode then refuses ("Invalid auth method selected.").
 */
function authType(user: Record<string, any>, e: Env): string | undefined {
  if (user.security?.auth?.selectedType) return undefined;
  if (e.GOOGLE_GENAI_USE_GCA === 'true' || e.GOOGLE_GENAI_USE_VERTEXAI === 'true') return undefined;
  return e.GEMINI_API_KEY ? 'gemini-api-key' : undefined;
}

/** The user's settings with lazy's server (trusted: its calls need no confirmation) and the auth type added. */
export function runSettings(user: Record<string, any>, mcp: McpServer | undefined, e: Env): Record<string, any> {
  const out = { ...user };
  if (mcp) {
    const lazy = {
      command: mcp.argv[0]!,
      args: mcp.argv.slice(1),
      env: mcp.env,
      trust: true,
      // lazy_wait and lazy_ask last as long as a subtask's turn: a day leaves their own timeout in charge.
      timeout: 86_400_000,
    };
    out.mcpServers = { ...(isObject(user.mcpServers) ? user.mcpServers : {}), lazy };
  }
  const auth = authType(user, e);
  if (auth) out.security = { ...user.security, auth: { ...user.security?.auth, selectedType: auth } };
  return out;
}

function link(target: string, path: string): void {
  try {
    lstatSync(path);
  } catch {
    symlinkSync(target, path);
  }
}

/**
 * Builds the run's gemini home in `dir` and returns it, or undefined when the user's settings
 * cannot be read as JSON (comments, a syntax error): the run then uses the user's home unchanged.
 */
export function geminiHome(dir: string, mcp: McpServer | undefined, e: Env): string | undefined {
  const home = userGeminiHome(e);
  const user = join(home, '.gemini');
  let settings: Record<string, any> = {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(user, 'settings.json'), 'utf8'));
    if (!isObject(parsed)) return undefined;
    settings = parsed;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
  }
  const own = join(dir, '.gemini');
  mkdirSync(own, { recursive: true });
  for (const s of SHARED_STATE) mkdirSync(join(user, s), { recursive: true });
  for (const entry of readdirSync(user)) if (entry !== 'settings.json') link(join(user, entry), join(own, entry));
  // Skills and agents gemini reads beside `.gemini`, under the same home.
  for (const entry of ['.agents']) if (existsSync(join(home, entry))) link(join(home, entry), join(dir, entry));
  writeFileAtomicSync(join(own, 'settings.json'), JSON.stringify(runSettings(settings, mcp, e), null, 2));
  return dir;
}

/** Where a run's gemini home goes: beside its MCP configuration, in the run's own folder. */
export const runHomeDir = (mcp: McpServer) => join(dirname(mcp.config), 'gemini-home');
