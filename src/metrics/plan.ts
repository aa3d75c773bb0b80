/**
 * From what a user asked for to scrape sources: the `--metrics` specs (or a queue check's
 * `metrics:`), how the ones reached directly are authenticated, and how long one scrape may take.
 * The flags and the check config both end here, so both reach the same sources the same way.
 *
 * Credentials go to a URL the user named, so the kubeconfig's are sent only on request; a token
 * of the user's own wins over the kubeconfig's.
 */
import { kubeconfigHttpsCredentials, type Kube } from '../kube/index.js';
import { createSources, type DirectAuth, type MetricsSource, type MetricsSpec, type SourceOptions } from './sources.js';

/** How the sources are reached (the --metrics-* flags, or a queue check's keys). */
export interface MetricsAccess {
  /** Skip certificate checks of https:// endpoints reached directly. */
  insecureSkipTlsVerify: boolean;
  /** Send the kubeconfig user's credentials to https:// endpoints reached directly. */
  kubeconfigCredentials: boolean;
  /** A bearer token for https:// endpoints reached directly. */
  token: string | undefined;
  /** How long one scrape of one source may take. */
  timeoutMs: number;
}

/** True when a source goes through the API server, or the kubeconfig's credentials are wanted. */
export function metricsNeedCluster(specs: readonly MetricsSpec[], access: Pick<MetricsAccess, 'kubeconfigCredentials'>): boolean {
  return specs.some((s) => s.kind !== 'url') || access.kubeconfigCredentials;
}

/**
 * How sources are reached with the --metrics-* flags: the API server's client, the timeout, the
 * auth of direct endpoints; `families`: the name prefixes of the only families the caller reads.
 */
export function sourceOptions(access: MetricsAccess, kube: Kube | undefined, families?: readonly string[]): SourceOptions {
  const direct: DirectAuth = {
    insecureSkipTlsVerify: access.insecureSkipTlsVerify,
    bearerToken: access.token,
    credentials: access.kubeconfigCredentials && kube ? kubeconfigHttpsCredentials(kube.connection.kubeConfig) : undefined,
  };
  return { client: kube?.client, timeoutMs: access.timeoutMs, direct, families };
}

/** Sources for `specs`; `kube` is needed when metricsNeedCluster says so; `families` as for sourceOptions. */
export function scrapeSources(specs: readonly string[], access: MetricsAccess, kube: Kube | undefined, families?: readonly string[]): MetricsSource[] {
  return createSources(specs, sourceOptions(access, kube, families));
}
