/**
 * src/metrics: Prometheus scrapes of the control plane and of controllers, turned into per-queue
 * and per-controller statistics.
 *
 * - Honest parsing: Prometheus text 0.0.4 and OpenMetrics 1.0 (escapes, NaN/±Inf, timestamps,
 *   histograms, summaries, `# EOF`, exemplars skipped). Anything else (an HTML login page, JSON)
 *   is refused with "answered text/html, not Prometheus metrics", never half-read. Our own parser,
 *   fuzzed: the npm ones lack OpenMetrics or mis-unescape labels (see parse.ts).
 * - Sources from `--metrics` specs, checked before any request: `apiserver`,
 *   `pod/NS/NAME[:PORT]` and `svc/NS/NAME[:PORT]` through the API server proxy (https, then http),
 *   `https://HOST:PORT/metrics` directly (token or caller-supplied credentials, optional TLS skip),
 *   all through src/kube's one request path. scrapeSources (plan.ts) builds them from the specs and
 *   a MetricsAccess, for the flags and check configs alike. Control-plane pods are found by label
 *   in kube-system.
 * - Discovery without flags (discover-targets.ts): the API server, kube-prometheus-labelled Services
 *   and their EndpointSlices, kubeadm static Pods, Pods with metrics ports or prometheus.io
 *   annotations, and the Pods Lease holders name; each target says how it was found and is reached
 *   directly or through the API server's proxy, whichever answers.
 * - Isolated failures: each source has its own timeout (on the injected Clock) and its own error
 *   (timeout, unreachable, TLS, 401, 403, not metrics, parse) with a hint; the others go on.
 * - Absent is not zero: a series the target does not expose is null in the statistics. Rates are
 *   reset-aware like rate(); quantiles interpolate bucket deltas like histogram_quantile().
 * - Plain snapshots: everything a subscriber gets is numbers, strings, booleans and null.
 * - Time is passed in: the poller runs on a Clock and stops on an AbortSignal.
 */
export {
  parseExposition,
  detectFormat,
  assertLooksLikeMetrics,
  parseFloatStrict,
  MetricsParseError,
  NotMetricsError,
  type Exposition,
  type ExpositionFormat,
  type MetricFamily,
  type MetricType,
  type Sample,
  type Labels,
  type ParseOptions,
} from './parse.js';
export { SampleIndex, labelKey, counterIncrease } from './series.js';
export { histogramQuantile, bucketDelta, collectHistograms, type Bucket, type HistogramSeries } from './histogram.js';
export {
  computeQueueStats,
  QUEUE_STATS_FAMILIES,
  type TimedScrape,
  type QueueStatsSnapshot,
  type QueueRow,
  type QueueTotals,
  type ControllerRow,
  type LeaderElectionRow,
  type Quantiles,
} from './queue-stats.js';
export { ScrapeError, SKIP_TLS_HINT, type ScrapeFailure } from './scrape-error.js';
export {
  parseMetricsSpec,
  formatMetricsSpec,
  createSource,
  createSources,
  METRICS_SPEC_FORMS,
  METRICS_ACCEPT,
  DEFAULT_SCRAPE_TIMEOUT_MS,
  type MetricsSpec,
  type MetricsSource,
  type RawGetter,
  type SourceOptions,
  type DirectAuth,
  type DirectCredentials,
} from './sources.js';
export { metricsNeedCluster, scrapeSources, sourceOptions, type MetricsAccess } from './plan.js';
export { discoverControlPlane, CONTROL_PLANE_PORTS, type DiscoveredComponent, type DiscoverOptions } from './discovery.js';
export { answered, MultiScraper, type SourceResult, type ScrapeSuccess, type ScrapeFailureResult } from './multi-scraper.js';
export { controllerQueueFor, queueAddsBetween, type QueueAdds } from './controller-queues.js';
export { MetricsPoller, DEFAULT_POLL_INTERVAL_MS, type MetricsSnapshot, type SourceStatus, type SnapshotListener, type PollerOptions } from './poller.js';
export {
  discoverTargets,
  mergeUserSpecs,
  parseUserSpec,
  sourceForTarget,
  RoutedSource,
  isLoopbackHost,
  KUBE_PROMETHEUS_LABELS,
  METRICS_PORT_NAMES,
  type DiscoveredTarget,
  type DiscoveryResult,
  type DiscoverTargetsOptions,
  type LeaseHolder,
  type Route,
} from './discover-targets.js';
