import type { Status } from './types.js';

/**
 * An error answer of the API server (or a failure to reach it), carrying what client-go's
 * apierrors carry, so callers branch on reason and code rather than on message text.
 */
export class ApiError extends Error {
  /** HTTP status code; 0 when no answer came (connection refused, reset, DNS, TLS). */
  readonly code: number;
  /** metav1.Status reason (Expired, Gone, NotFound, Forbidden, Conflict, TooManyRequests, ...). */
  readonly reason: string;
  readonly status: Status | undefined;
  /** Set when the connection itself failed: ECONNREFUSED, ECONNRESET, ... */
  readonly networkCode: string | undefined;
  /** What we were doing: "list deployments.apps in namespace demo". */
  readonly operation: string | undefined;
  /** The request that was refused, for messages that name it (403 names verb, resource, namespace). */
  readonly request: RequestDescription | undefined;

  constructor(
    message: string,
    init: {
      code: number;
      reason?: string;
      status?: Status;
      networkCode?: string;
      operation?: string;
      request?: RequestDescription;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ApiError';
    this.code = init.code;
    this.reason = init.reason ?? init.status?.reason ?? '';
    this.status = init.status;
    this.networkCode = init.networkCode;
    this.operation = init.operation ?? (init.request ? describeRequest(init.request) : undefined);
    this.request = init.request;
  }

  static fromStatus(status: Status, request?: RequestDescription, httpCode?: number): ApiError {
    return new ApiError(status.message ?? status.reason ?? `status ${status.code ?? httpCode ?? 'unknown'}`, {
      code: status.code ?? httpCode ?? 0,
      status,
      ...(request ? { request } : {}),
    });
  }
}

/** A request in the words RBAC uses: verb, group resource, namespace, name. */
export interface RequestDescription {
  verb: string;
  /** Group resource as kubectl writes it: "deployments.apps", "pods", "leases.coordination.k8s.io". */
  resource: string;
  namespace?: string | undefined;
  name?: string | undefined;
  /** Non-resource URL path, e.g. "/metrics", when the request is not for a resource. */
  path?: string | undefined;
  /** The kubeconfig user the request was made as, for messages. */
  user?: string | undefined;
}

export function describeRequest(r: RequestDescription): string {
  if (r.path) return `${r.verb} ${r.path}`;
  const what = r.name ? `${r.resource}/${r.name}` : r.resource;
  return r.namespace ? `${r.verb} ${what} in namespace ${r.namespace}` : `${r.verb} ${what}`;
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}

/** 410 Gone or reason Expired: the requested resourceVersion is too old. */
export function isExpiredOrGone(err: unknown): boolean {
  return isApiError(err) && (err.code === 410 || err.reason === 'Expired' || err.reason === 'Gone');
}

export function isExpired(err: unknown): boolean {
  return isApiError(err) && err.reason === 'Expired';
}

/**
 * "Too large resource version": the cause ResourceVersionTooLarge, or the older forms (a Timeout
 * with the message "Too large resource version", 504).
 */
export function isTooLargeResourceVersion(err: unknown): boolean {
  if (!isApiError(err)) return false;
  if (err.status?.details?.causes?.some((c) => c.reason === 'ResourceVersionTooLarge')) return true;
  return (err.reason === 'Timeout' || err.code === 504) && /too large resource version/i.test(err.message);
}

export function isTooManyRequests(err: unknown): boolean {
  return isApiError(err) && (err.code === 429 || err.reason === 'TooManyRequests');
}

export function isConnectionRefused(err: unknown): boolean {
  return isApiError(err) && err.networkCode === 'ECONNREFUSED';
}

export function isInternalError(err: unknown): boolean {
  return isApiError(err) && err.code === 500;
}

export function isNotFound(err: unknown): boolean {
  return isApiError(err) && (err.code === 404 || err.reason === 'NotFound');
}

export function isConflict(err: unknown): boolean {
  return isApiError(err) && (err.code === 409 || err.reason === 'Conflict');
}

export function isAlreadyExists(err: unknown): boolean {
  return isApiError(err) && err.reason === 'AlreadyExists';
}

export function isForbidden(err: unknown): boolean {
  return isApiError(err) && (err.code === 403 || err.reason === 'Forbidden');
}
