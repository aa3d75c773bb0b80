/**
 * src/probe: `kubectl informer-trace probe`, the continuous in-cluster probe.
 *
 * - Probe: the loop. Each round makes sure the canary exists (when it owns one), writes the trigger
 *   (restart, or scale between two sizes), traces the chain with a TraceSession until converged or
 *   timed out, diagnoses it, records metrics and exports the trace. A failed round is counted and
 *   the loop goes on; on stop the round in progress gets a grace period.
 * - canary: the canary Deployment, marked by a label so that nothing else is ever taken over.
 * - ProbeMetrics: prom-client registry plus the tracer's workqueue metrics under client-go's names.
 * - serveProbe: /metrics, /healthz, /readyz.
 */
export { Probe, type ProbeOptions, type RoundResult } from './probe.js';
export { canaryManifest, ensureCanary, CANARY_LABEL, DEFAULT_CANARY_IMAGE, DEFAULT_CANARY_NAME, type CanarySpec } from './canary.js';
export { ProbeMetrics, roundOutcome, type RoundOutcome } from './metrics.js';
export { parseListen, serveProbe, type ListenAddress, type ProbeHealth, type RunningServer } from './server.js';
