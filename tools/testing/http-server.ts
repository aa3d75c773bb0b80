/** A real HTTP server on the loopback address, for unit tests of code that sends requests. */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';

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

/** A kubeconfig whose one context reaches `server` (a loopback server's base) as a user without credentials. */
export function loopbackKubeConfig(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}
