import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { listenLoopback } from './loopback.js';

// A scripted Messages API on loopback, so the real `claude` CLI runs a whole turn offline
// (../shared/notes/measured-facts.md): each streaming POST /v1/messages gets the next reply
// the script returns, sent in the API's SSE form. Side queries (non-streaming) get a short text.

export type Block = { type: 'text'; text: string } | { type: 'tool_use'; name: string; input: unknown };

export interface Reply {
  blocks: Block[];
  stop: 'end_turn' | 'tool_use';
}

/** An HTTP error in the API's form: `{type: 'error', error: {type, message}}` with this status. */
export interface ErrorReply {
  status: number;
  error: { type: string; message: string };
}

export interface Request {
  model: string;
  messages: { role: string; content: unknown }[];
  tools: { name: string }[];
}

export interface FakeApi {
  url: string;
  /** Every streaming request claude sent, in order. */
  requests: Request[];
  close(): Promise<void>;
}

const sse = (res: http.ServerResponse, event: string, data: unknown) =>
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

const usage = (out: number) => ({
  input_tokens: 30,
  cache_creation_input_tokens: 7,
  cache_read_input_tokens: 11,
  output_tokens: out,
});

function stream(res: http.ServerResponse, model: string, r: Reply): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const message = { id: `msg_${randomUUID()}`, type: 'message', role: 'assistant', model, content: [] };
  sse(res, 'message_start', { type: 'message_start', message: { ...message, stop_reason: null, usage: usage(1) } });
  r.blocks.forEach((b, index) => {
    if (b.type === 'text') {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: b.text },
      });
    } else {
      const block = { type: 'tool_use', id: `toolu_${randomUUID().replace(/-/g, '')}`, name: b.name, input: {} };
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: block });
      const delta = { type: 'input_json_delta', partial_json: JSON.stringify(b.input) };
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: r.stop }, usage: { output_tokens: 20 } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

/** Starts the server; `script` answers the n-th streaming request (0-based) and may take its time. */
export async function fakeAnthropic(
  script: (req: Request, n: number) => Reply | ErrorReply | Promise<Reply | ErrorReply>,
): Promise<FakeApi> {
  const requests: Request[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
        res.writeHead(req.method === 'HEAD' ? 200 : 404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Request & { stream?: boolean };
      if (!body.stream) {
        const text = { ...usage(1), type: 'message', role: 'assistant', model: body.model };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...text, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' }));
        return;
      }
      requests.push(body);
      void Promise.resolve(script(body, requests.length - 1)).then(
        (r) =>
          'status' in r
            ? res
                .writeHead(r.status, { 'content-type': 'application/json' })
                .end(JSON.stringify({ type: 'error', error: r.error }))
            : stream(res, body.model, r),
        (e: Error) => res.writeHead(500).end(String(e.message)),
      );
    });
  });
  const { url, close } = await listenLoopback(server);
  return { url, requests, close };
}

/** The tool results of the request's last user message, by tool name of the call they answer. */
export function toolResults(req: Request): { name: string; content: string; is_error: boolean }[] {
  const names = new Map<string, string>();
  for (const m of req.messages)
    if (m.role === 'assistant' && Array.isArray(m.content))
      for (const c of m.content as { type: string; id?: string; name?: string }[])
        if (c.type === 'tool_use') names.set(c.id!, c.name!);
  const last = req.messages.at(-1);
  if (!last || last.role !== 'user' || !Array.isArray(last.content)) return [];
  return (last.content as { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean }[])
    .filter((c) => c.type === 'tool_result')
    .map((c) => ({
      name: names.get(c.tool_use_id!) ?? '?',
      content: typeof c.content === 'string' ? c.content : JSON.stringify(c.content),
      is_error: c.is_error === true,
    }));
}
