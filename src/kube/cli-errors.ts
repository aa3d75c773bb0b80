/**
 * Turns what the API layer throws into the CliError a user reads: what was refused or unreachable,
 * in kubectl's words, with the command that confirms or fixes it.
 */
import { CheckFailedError, CliError, ClusterError, UsageError } from '../errors.js';
import { inCheckoutWith } from '../util/checkout.js';
import { ApiError, describeRequest } from './api-error.js';
import { isTlsErrorCode } from './http.js';

export interface ErrorContext {
  server?: string;
  user?: string;
}

/** `err` as a CliError when it is a failure we can name (an ApiError); anything else as it came. */
export function toCliError(err: unknown, ctx: ErrorContext = {}): unknown {
  if (err instanceof CliError || !(err instanceof ApiError)) return err;
  const server = ctx.server ? ` at ${ctx.server}` : '';
  if (err.networkCode) {
    if (isTlsErrorCode(err.networkCode)) {
      return new ClusterError(`TLS verification of the API server${server} failed (${err.networkCode})`, {
        hint: 'pass --certificate-authority FILE with the cluster CA, or --insecure-skip-tls-verify to skip the check',
        cause: err,
      });
    }
    const message = ctx.server
      ? `the API server${server} ${err.networkCode === 'ETIMEDOUT' ? 'did not answer in time' : `is unreachable (${err.networkCode})`}`
      : err.message;
    return new ClusterError(message, {
      hint: `is the cluster running? check --server, --context and the kubeconfig${inCheckoutWith('cluster:up') ? ' (npm run cluster:up starts the local one)' : ''}`,
      cause: err,
    });
  }
  const req = err.request;
  if (err.code === 401) {
    const user = ctx.user ?? req?.user;
    return new ClusterError(`the API server${server} refused our credentials (401 Unauthorized)${user ? ` for user "${user}"` : ''}`, {
      hint: 'the token or client certificate is invalid or expired; check the kubeconfig user, or --token',
      cause: err,
    });
  }
  if (err.code === 403) {
    const user = ctx.user ?? req?.user;
    const who = user ? `user "${user}"` : 'the current user';
    if (req) {
      const can = req.path
        ? `kubectl auth can-i ${req.verb} ${req.path}`
        : `kubectl auth can-i ${req.verb} ${req.resource}${req.name ? `/${req.name}` : ''}${req.namespace ? ` -n ${req.namespace}` : req.resource && !req.path ? ' --all-namespaces' : ''}`;
      return new ClusterError(`forbidden: ${who} may not ${describeRequest(req)} (403)`, {
        hint: `confirm with: ${can}`,
        cause: err,
      });
    }
    return new ClusterError(`forbidden (403): ${err.message}`, { cause: err });
  }
  if (err.code === 400 || err.code === 422) {
    // The server refused the request itself (a selector it cannot parse, an invalid name or
    // value): that comes from what the user typed, not from the cluster, so it is a usage error
    // (exit 2), not exit 3. Commands that know which flag it came from say so (cache.ts).
    const what = err.operation ? ` ${err.operation}` : ' the request';
    return new UsageError(`the API server rejected${what} (${err.code}${err.reason ? ` ${err.reason}` : ''}): ${err.message}`, { cause: err });
  }
  if (err.code === 404 && req) {
    return new CheckFailedError(`${req.resource}${req.name ? ` "${req.name}"` : ''} not found${req.namespace ? ` in namespace ${req.namespace}` : ''}`, {
      cause: err,
    });
  }
  return new ClusterError(`${err.operation ? `${err.operation}: ` : ''}${err.message}`, { cause: err });
}
