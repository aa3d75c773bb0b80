import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from './client.js';
import { loadConnection } from './config.js';

describe('a plain http:// API server address, as kubectl proxy serves', () => {
  let server: Server;
  let port: number;
  const dir = mkdtempSync(join(tmpdir(), 'informer-trace-config-'));
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, authorization: req.headers.authorization ?? null }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('is reached from a kubeconfig without insecure-skip-tls-verify, with the user token sent', async () => {
    const file = join(dir, 'kubeconfig');
    writeFileSync(
      file,
      `apiVersion: v1
kind: Config
clusters:
- name: proxy
  cluster:
    server: http://127.0.0.1:${port}
users:
- name: me
  user:
    token: abc
contexts:
- name: here
  context: {cluster: proxy, user: me}
current-context: here
`,
    );
    const conn = loadConnection({ kubeconfig: file }, {});
    const answer = await new KubeClient(conn.kubeConfig).json<{ path: string; authorization: string }>('/version');
    expect(answer).toEqual({ path: '/version', authorization: 'Bearer abc' });
  });

  it('is reached from --server alone', async () => {
    const file = join(dir, 'empty');
    writeFileSync(file, 'apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n');
    const conn = loadConnection({ kubeconfig: file, server: `http://127.0.0.1:${port}` }, {});
    expect(await new KubeClient(conn.kubeConfig).json<{ path: string }>('/api')).toMatchObject({ path: '/api' });
  });
});
