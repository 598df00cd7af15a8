import type { ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from './guard.js';

// Server-sent events: the page's live channel. A stream is plain text the browser's EventSource reads; each event
// is its name and one line of JSON.

export interface Stream {
  send(event: string, data: unknown): void;
  /** Whether the page is still there. */
  open(): boolean;
  end(): void;
}

export function openStream(res: ServerResponse, onClose: () => void): Stream {
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8' });
  // A dropped stream is retried by the browser after this long.
  res.write('retry: 1000\n\n');
  let open = true;
  res.on('close', () => {
    open = false;
    onClose();
  });
  return {
    send: (event, data) => {
      if (open) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    open: () => open,
    end: () => {
      if (open) res.end();
    },
  };
}
