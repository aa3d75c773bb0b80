/**
 * The `--metrics` flags, the same on every command that scrapes controllers (queues, the trace,
 * check): which sources, and how to authenticate to the ones reached directly. Checked before any
 * request; scrapeSources (src/metrics) turns the plan into sources.
 *
 * Credentials go to a URL the user named, so the kubeconfig's are sent only on request
 * (--metrics-kubeconfig-credentials); a --metrics-token wins over the kubeconfig's token.
 */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { metricsNeedCluster, parseMetricsSpec, type MetricsAccess, type MetricsSpec } from '../metrics/index.js';
import { say, type CommandIO } from './io.js';
import { collect, positiveDurationFlag } from './options.js';

export interface MetricsFlagValues {
  metrics?: string[] | undefined;
  metricsToken?: string | undefined;
  metricsKubeconfigCredentials?: boolean | undefined;
  metricsInsecureSkipTlsVerify?: boolean | undefined;
  /** kubectl's flag, for the API server; covers metrics endpoints too. */
  insecureSkipTlsVerify?: boolean | undefined;
  metricsTimeout?: string | undefined;
}

export interface MetricsPlan {
  /** --metrics as written, for scrapeSources. */
  sources: string[];
  specs: MetricsSpec[];
  /** For scrapeSources (src/metrics), with the specs or the sources discovered instead. */
  access: MetricsAccess;
  /** True when a source goes through the API server or the kubeconfig's credentials are wanted. */
  needsCluster: boolean;
}

export function addMetricsFlags(cmd: Command, what: string): Command {
  return cmd
    .option('--metrics <spec>', `${what} (repeatable): apiserver, pod/NS/NAME[:PORT], svc/NS/NAME[:PORT], https://HOST:PORT/metrics`, collect, [])
    .option('--metrics-token <token>', 'bearer token for https:// metrics endpoints')
    .option('--metrics-kubeconfig-credentials', "send the kubeconfig user's credentials (client certificate, token, exec plugin) to https:// metrics endpoints")
    .option(
      '--metrics-insecure-skip-tls-verify',
      'do not check the certificates of https:// metrics endpoints (components serve self-signed ones); --insecure-skip-tls-verify covers them too',
    )
    .option('--metrics-timeout <duration>', 'how long one scrape of one source may take', '5s');
}

/** Every metrics flag checked, nothing sent. */
export function planMetrics(opts: MetricsFlagValues): MetricsPlan {
  const specs = (opts.metrics ?? []).map(parseMetricsSpec);
  const timeoutMs = positiveDurationFlag('--metrics-timeout', opts.metricsTimeout ?? '5s', '5s');
  const direct = specs.some((s) => s.kind === 'url');
  if (!direct && specs.length > 0 && (opts.metricsToken !== undefined || opts.metricsKubeconfigCredentials)) {
    const flag = opts.metricsToken !== undefined ? '--metrics-token' : '--metrics-kubeconfig-credentials';
    throw new UsageError(`${flag} applies to https://HOST:PORT/metrics sources, and none is given`, {
      hint: "apiserver, pod/ and svc/ sources go through the API server with the kubeconfig's credentials already",
    });
  }
  if (opts.metricsToken !== undefined && opts.metricsToken.trim() === '') throw new UsageError('--metrics-token is empty');
  const access: MetricsAccess = {
    insecureSkipTlsVerify: Boolean(opts.metricsInsecureSkipTlsVerify) || Boolean(opts.insecureSkipTlsVerify),
    kubeconfigCredentials: Boolean(opts.metricsKubeconfigCredentials),
    token: opts.metricsToken,
    timeoutMs,
  };
  return { sources: opts.metrics ?? [], specs, access, needsCluster: specs.length === 0 || metricsNeedCluster(specs, access) };
}

/**
 * Says on stderr when a metrics source fails, once per error (again only when the error changes),
 * and once when it answers again. Called with each source's state at each scrape: its error, or
 * undefined when it answered; `label` names what it is for when that is not the source itself.
 */
export function metricsFailureReporter(io: Pick<CommandIO, 'stderr'>): (source: string, error: string | undefined, label?: string) => void {
  const said = new Map<string, string>();
  return (source, error, label) => {
    const what = `metrics ${source}${label && label !== source ? ` (${label})` : ''}`;
    if (error !== undefined) {
      if (said.get(source) !== error) say(io, `error: ${what}: ${error}`);
      said.set(source, error);
    } else if (said.delete(source)) say(io, `${what}: answering again`);
  };
}
