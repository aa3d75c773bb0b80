/** A real HTTP server on the loopback address, for unit tests of code that sends requests. */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackServer {
  /** http://127.0.0.1:PORT */
  base: string;
  /** Drops open connections (a handler may never answer) and stops listening. */
  close(): Promise<void>;
}

export async function startLoopbackServer(handler: RequestListener): Promise<LoopbackServer> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
