import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts a stand-in server on a free loopback port: its URL, and a close that drops kept-alive connections too. */
export async function listenLoopback(server: http.Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
