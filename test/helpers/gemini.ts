import http from 'node:http';
import { listenLoopback } from './loopback.js';

// A scripted Gemini API on loopback, so the real `gemini` CLI runs a whole turn offline
// (../shared/notes/measured-facts.md): each POST …:streamGenerateContent?alt=sse gets the next
// reply the script returns, sent as the API's SSE chunks. A plain :generateContent (the `auto`
// model's router, a summary) gets a short JSON text; a script reply with `status` is an API error.

export type Part = { text: string } | { functionCall: { name: string; args: unknown } };

export type Reply = { parts: Part[] } | { status: number; error: { code: number; message: string; status: string } };

export interface Request {
  model: string;
  contents: { role: string; parts: Record<string, any>[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
}

export interface FakeGemini {
  url: string;
  /** Every streaming request the CLI sent, in order. */
  requests: Request[];
  /** Every request line (method and path) it got, in order. */
  seen: string[];
  close(): Promise<void>;
}

export const usageMetadata = { promptTokenCount: 120, candidatesTokenCount: 9, totalTokenCount: 129 };

function answer(res: http.ServerResponse, r: Reply): void {
  if ('status' in r) {
    res.writeHead(r.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: r.error }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = { candidates: [{ content: { role: 'model', parts: r.parts }, finishReason: 'STOP', index: 0 }] };
  res.write(`data: ${JSON.stringify({ ...chunk, usageMetadata })}\n\n`);
  res.end();
}

/** Starts the server; `script` answers the n-th streaming request (0-based) and may take its time. */
export async function fakeGemini(script: (req: Request, n: number) => Reply | Promise<Reply>): Promise<FakeGemini> {
  const requests: Request[] = [];
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      const m = /^\/v1(?:beta)?\/models\/([^:/?]+):(streamGenerateContent|generateContent|countTokens)/.exec(
        req.url ?? '',
      );
      if (req.method !== 'POST' || !m) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Request;
      if (m[2] === 'countTokens') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"totalTokens":10}');
        return;
      }
      if (m[2] === 'generateContent') {
        // The `auto` model's router asks for JSON naming a model; anything else takes the text as it is.
        const text = JSON.stringify({ reasoning: 'simple', model_choice: 'flash' });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP' }],
            usageMetadata,
          }),
        );
        return;
      }
      requests.push({ ...body, model: m[1]! });
      void Promise.resolve(script(body, requests.length - 1)).then(
        (r) => answer(res, r),
        (e: Error) => res.writeHead(500).end(String(e.message)),
      );
    });
  });
  const { url, close } = await listenLoopback(server);
  return { url, requests, seen, close };
}

/** The function responses of the request's last user turn, by name. */
export function functionResponses(req: Request): { name: string; response: any }[] {
  const last = req.contents.at(-1);
  if (!last || last.role !== 'user') return [];
  return last.parts.filter((p) => p.functionResponse).map((p) => p.functionResponse as { name: string; response: any });
}
