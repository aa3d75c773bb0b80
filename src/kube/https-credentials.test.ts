import { rootCertificates } from 'node:tls';
import { KubeConfig, type User } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { kubeconfigHttpsCredentials } from './https-credentials.js';

const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBcluster-ca\n-----END CERTIFICATE-----\n';
const CERT_PEM = '-----BEGIN CERTIFICATE-----\nMIIBclient\n-----END CERTIFICATE-----\n';
const KEY_PEM = '-----BEGIN PRIVATE KEY-----\nMIIBkey\n-----END PRIVATE KEY-----\n';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function kubeConfig(user: Omit<User, 'name'>, caData?: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: false, ...(caData ? { caData } : {}) }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return kc;
}

describe("kubeconfigHttpsCredentials: the kubeconfig's user for a direct https endpoint", () => {
  it('a client certificate and key, and the cluster CA added to (not replacing) the root certificates', async () => {
    const creds = await kubeconfigHttpsCredentials(kubeConfig({ certData: b64(CERT_PEM), keyData: b64(KEY_PEM) }, b64(CA_PEM)))();
    expect(creds.cert?.toString()).toBe(CERT_PEM);
    expect(creds.key?.toString()).toBe(KEY_PEM);
    expect(creds.ca?.endsWith(CA_PEM)).toBe(true);
    expect(creds.ca?.startsWith(rootCertificates[0]!)).toBe(true);
    expect(creds.headers).toEqual({});
  });

  it('a bearer token as the Authorization header, and no CA when the kubeconfig has none', async () => {
    const creds = await kubeconfigHttpsCredentials(kubeConfig({ token: 'abc.def' }))();
    expect(creds.headers).toEqual({ Authorization: 'Bearer abc.def' });
    expect(creds.ca).toBeUndefined();
    expect(creds.cert).toBeUndefined();
  });

  it('basic auth as an Authorization header', async () => {
    const creds = await kubeconfigHttpsCredentials(kubeConfig({ username: 'admin', password: 's3cret' }))();
    expect(creds.headers).toEqual({ Authorization: `Basic ${b64('admin:s3cret')}` });
  });

  it('asks again on every call, so an exec plugin can hand out a fresh token', async () => {
    const kc = kubeConfig({ token: 'first' });
    const get = kubeconfigHttpsCredentials(kc);
    expect((await get()).headers.Authorization).toBe('Bearer first');
    (kc.getCurrentUser() as unknown as { token: string }).token = 'second';
    expect((await get()).headers.Authorization).toBe('Bearer second');
  });
});
