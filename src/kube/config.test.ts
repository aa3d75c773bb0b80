import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeCa, makeServingCert } from '../../tools/cluster/pki.js';
import { KubeClient } from './client.js';
import { inClusterConfig, loadConnection, SERVICE_ACCOUNT_DIR_ENV } from './config.js';

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

describe('in-cluster configuration, as rest.InClusterConfig loads it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'informer-trace-incluster-'));
  const sa = join(dir, 'serviceaccount');
  let server: HttpsServer;
  let port: number;
  const seen: (string | null)[] = [];
  let accepted = 'first-token';

  beforeAll(async () => {
    await makeCa(dir);
    await makeServingCert(dir);
    mkdirSync(sa);
    writeFileSync(join(sa, 'ca.crt'), readFileSync(join(dir, 'ca.crt')));
    writeFileSync(join(sa, 'token'), 'first-token\n');
    writeFileSync(join(sa, 'namespace'), 'probe-ns');
    server = createHttpsServer({ cert: readFileSync(join(dir, 'apiserver.crt')), key: readFileSync(join(dir, 'apiserver.key')) }, (req, res) => {
      seen.push(req.headers.authorization ?? null);
      const ok = req.headers.authorization === `Bearer ${accepted}`;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { path: req.url } : { kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401, message: 'Unauthorized' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    vi.useRealTimers();
    rmSync(dir, { recursive: true, force: true });
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const env = (): NodeJS.ProcessEnv => ({
    KUBERNETES_SERVICE_HOST: '127.0.0.1',
    KUBERNETES_SERVICE_PORT: String(port),
    [SERVICE_ACCOUNT_DIR_ENV]: sa,
    HOME: dir,
  });

  it('is used with no kubeconfig: https to the service address, the mounted CA verifies it, the token is sent', async () => {
    const conn = loadConnection({ kubeconfig: undefined }, env());
    expect(conn.source).toBe('in-cluster service account');
    expect(conn.server).toBe(`https://127.0.0.1:${port}`);
    expect(conn.namespace).toBe('probe-ns');
    expect(conn.namespaceExplicit).toBe(false);
    const client = new KubeClient(conn.kubeConfig, 0, conn.userName, conn.credentialsTtlMs ?? 0);
    expect(await client.json<{ path: string }>('/version')).toEqual({ path: '/version' });
    expect(seen.at(-1)).toBe('Bearer first-token');
  });

  it('takes -n over the namespace file, and $POD_NAMESPACE before the file', () => {
    expect(loadConnection({ namespace: 'other' }, env()).namespace).toBe('other');
    expect(loadConnection({}, { ...env(), POD_NAMESPACE: 'from-env' }).namespace).toBe('from-env');
  });

  it('is not used when a kubeconfig exists', () => {
    const file = join(dir, 'kubeconfig');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "https://10.1.1.1:6443"}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n',
    );
    const conn = loadConnection({}, { ...env(), KUBECONFIG: file });
    expect(conn.server).toBe('https://10.1.1.1:6443');
    expect(conn.credentialsTtlMs).toBeUndefined();
  });

  it('re-reads a rotated token after a 401, and after a minute without one', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const conn = loadConnection({}, env());
    expect(conn.credentialsTtlMs).toBe(60_000);
    const client = new KubeClient(conn.kubeConfig, 0, conn.userName, conn.credentialsTtlMs ?? 0);
    await client.json('/a');
    expect(seen.at(-1)).toBe('Bearer first-token');

    // Rotated on disk, and the server already refuses the old one: one 401, then the new token.
    writeFileSync(join(sa, 'token'), 'second-token');
    accepted = 'second-token';
    await expect(client.json('/b')).rejects.toMatchObject({ code: 401 });
    await client.json('/c');
    expect(seen.at(-1)).toBe('Bearer second-token');

    // Rotated again while the old token still works (the kubelet rotates well before expiry):
    // no 401, the file is read again once the cached token is a minute old.
    writeFileSync(join(sa, 'token'), 'third-token');
    await client.json('/d');
    expect(seen.at(-1)).toBe('Bearer second-token');
    accepted = 'third-token';
    vi.setSystemTime(Date.now() + 60_001);
    await client.json('/e');
    expect(seen.at(-1)).toBe('Bearer third-token');
    vi.useRealTimers();
  });

  it('says what is missing in one line: a variable unset, the token unreadable', () => {
    expect(() => loadConnection({}, { KUBERNETES_SERVICE_HOST: '127.0.0.1', HOME: dir })).toThrow(
      /KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set/,
    );
    expect(() => loadConnection({}, { ...env(), [SERVICE_ACCOUNT_DIR_ENV]: join(dir, 'nowhere') })).toThrow(
      /cannot read the service account token .*nowhere\/token: ENOENT/,
    );
  });

  it('brackets an IPv6 service address', () => {
    expect(inClusterConfig({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443', [SERVICE_ACCOUNT_DIR_ENV]: sa }).server).toBe(
      'https://[fd00::1]:443',
    );
  });
});

describe("a cluster entry's disable-compression, as kubectl reads it", () => {
  const dir = mkdtempSync(join(tmpdir(), 'informer-trace-compression-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = (name: string, clusters: string): string => {
    const file = join(dir, name);
    writeFileSync(
      file,
      `apiVersion: v1
kind: Config
clusters:
${clusters}
users:
- name: me
  user: {token: abc}
contexts:
- name: slow
  context: {cluster: slow, user: me}
- name: fast
  context: {cluster: fast, user: me}
current-context: slow
`,
    );
    return file;
  };
  const both = kubeconfig(
    'both',
    `- name: slow
  cluster:
    server: https://127.0.0.1:6443
    disable-compression: true
- name: fast
  cluster: {server: https://127.0.0.1:6444, disable-compression: false}`,
  );

  it('turns compression off for that cluster only', () => {
    expect(loadConnection({ kubeconfig: both }, {}).compression).toBe(false);
    expect(loadConnection({ kubeconfig: both, context: 'fast' }, {}).compression).toBe(true);
    expect(loadConnection({ kubeconfig: both, context: 'fast', cluster: 'slow' }, {}).compression).toBe(false);
  });

  it('is not turned back on by the flag, which only turns compression off', () => {
    expect(loadConnection({ kubeconfig: both, disableCompression: false }, {}).compression).toBe(false);
    expect(loadConnection({ kubeconfig: both, context: 'fast', disableCompression: true }, {}).compression).toBe(false);
  });

  it('comes with the cluster entry that wins when KUBECONFIG merges files', () => {
    const plain = kubeconfig('plain', '- name: slow\n  cluster: {server: https://127.0.0.1:7443}');
    expect(loadConnection({}, { KUBECONFIG: [plain, both].join(delimiter) }).compression).toBe(true);
    expect(loadConnection({}, { KUBECONFIG: [both, plain].join(delimiter) }).compression).toBe(false);
  });
});
