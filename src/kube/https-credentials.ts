/**
 * The kubeconfig's user, as TLS material and headers for an https endpoint other than the API
 * server (a control-plane component's /metrics): client certificate and key, the bearer token or
 * what an exec / auth-provider plugin returns, basic auth, and the cluster's CA.
 *
 * Read through KubeConfig.applyToHTTPSOptions, the same path KubeClient takes, so every kind of
 * user the API server accepts works here too. The cluster's CA is added to Node's root
 * certificates rather than replacing them: an endpoint signed by a public CA still verifies.
 */
import { rootCertificates } from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';

export interface HttpsCredentials {
  headers: Record<string, string>;
  ca?: string | undefined;
  cert?: string | Buffer | undefined;
  key?: string | Buffer | undefined;
}

interface AppliedOptions {
  headers?: Record<string, string | number | string[] | undefined>;
  auth?: string;
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
}

/**
 * A function that reads the credentials afresh each time it is called (exec plugins hand out
 * tokens that expire), for `--metrics-kubeconfig-credentials`.
 */
export function kubeconfigHttpsCredentials(kubeConfig: KubeConfig): () => Promise<HttpsCredentials> {
  return async () => {
    const opts: AppliedOptions = {};
    await kubeConfig.applyToHTTPSOptions(opts as never);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    if (opts.auth && !Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) {
      headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    }
    const out: HttpsCredentials = { headers };
    if (opts.ca) out.ca = `${rootCertificates.join('\n')}\n${opts.ca.toString()}`;
    if (opts.cert) out.cert = opts.cert;
    if (opts.key) out.key = opts.key;
    return out;
  };
}
