/**
 * Where OTLP spans go, from --otlp-endpoint and the OpenTelemetry environment variables. Apart from
 * otlp.ts so that a command can ask whether spans are wanted without loading the OpenTelemetry SDK.
 */
import { UsageError } from '../errors.js';

export interface OtlpTarget {
  /** Full URL of the traces endpoint (…/v1/traces). */
  url: string;
  headers: Record<string, string>;
}

const TRACES_PATH = '/v1/traces';

/**
 * Where spans go: `--otlp-endpoint` (a base URL, `/v1/traces` added unless given), else
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as it is), else OTEL_EXPORTER_OTLP_ENDPOINT (a base
 * URL), as the OpenTelemetry specification orders them; undefined when none is set. Headers from
 * OTEL_EXPORTER_OTLP_TRACES_HEADERS and OTEL_EXPORTER_OTLP_HEADERS (`k=v,k2=v2`).
 */
export function resolveOtlpTarget(flag: string | undefined, env: NodeJS.ProcessEnv): OtlpTarget | undefined {
  let url: string | undefined;
  let from = '--otlp-endpoint';
  if (flag) url = withTracesPath(flag);
  else if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    from = 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT';
  } else if (env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    url = withTracesPath(env.OTEL_EXPORTER_OTLP_ENDPOINT);
    from = 'OTEL_EXPORTER_OTLP_ENDPOINT';
  }
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${from}: "${url}" is not a URL`, { hint: 'e.g. http://jaeger-collector:4318' });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`${from}: "${url}" must use http:// or https:// (OTLP over HTTP)`);
  return { url: parsed.toString(), headers: { ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) } };
}

function withTracesPath(base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith(TRACES_PATH) ? trimmed : `${trimmed}${TRACES_PATH}`;
}

function parseHeaders(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (value ?? '').split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    out[decodeURIComponent(part.slice(0, eq).trim())] = decodeURIComponent(part.slice(eq + 1).trim());
  }
  return out;
}
