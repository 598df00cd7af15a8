// The page's one door to the server: every request carries the token from the shell's meta tag (the cookie
// authenticates GETs; a state-changing request must also carry X-Lazy-Token, which a cross-site form cannot send),
// and an error document becomes a thrown ApiError with the CLI's code and message.

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function token(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="lazy-token"]')?.content ?? '';
}

interface ErrorDoc {
  error?: { code?: string; message?: string; details?: unknown };
}

async function failure(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const doc = JSON.parse(text) as ErrorDoc;
    if (doc.error?.message)
      return new ApiError(doc.error.code ?? 'error', doc.error.message, res.status, doc.error.details);
  } catch {
    /* not JSON: the status line below says what happened */
  }
  const message = text.trim().slice(0, 300) || `${res.status} ${res.statusText}`;
  return new ApiError(`http_${res.status}`, message, res.status);
}

async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', 'X-Lazy-Token': token() };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? null : JSON.stringify(body),
      signal: signal ?? null,
    });
  } catch (e) {
    // Ended by its view (the person left it, or a newer refresh took over): no failure to show.
    if (signal?.aborted) throw e;
    throw new ApiError(
      'network',
      `the lazy ui server did not answer (${(e as Error).message}); is it still running?`,
      0,
    );
  }
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/** A read; `signal` is its view's (viewRequests), so a view the person left keeps no request running. */
export const get = <T>(path: string, signal?: AbortSignal) => request<T>('GET', path, undefined, signal);

export const post = <T>(path: string, body: unknown = {}) => request<T>('POST', path, body);

/**
 * A view's requests: each refresh takes the signal of a new round, which ends the round before it (its answer would
 * be dropped anyway), and close() ends the last one, so the server stops work nobody will see (it ends a call whose
 * client went away). A round's signal is aborted exactly when its answer must not be drawn. Only reads carry it: an
 * action the person started (a POST) runs to its end wherever they go.
 */
export function viewRequests(): { round(): AbortSignal; close(): void } {
  let current: AbortController | null = null;
  let closed = false;
  return {
    round() {
      current?.abort();
      current = new AbortController();
      if (closed) current.abort();
      return current.signal;
    },
    close() {
      closed = true;
      current?.abort();
    },
  };
}

/** A query string from named values; arrays repeat the name, empty values are left out. */
export function query(params: Record<string, string | string[] | number | boolean | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === '' || v === false) continue;
    if (Array.isArray(v)) for (const x of v) q.append(k, x);
    else q.append(k, v === true ? '1' : String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const taskPath = (id: string, rest = '') => `/api/tasks/${encodeURIComponent(id)}${rest}`;
