import { describe, expect, it } from 'vitest';
import { ClusterError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { ApiError } from './api-error.js';
import { toCliError } from './cli-errors.js';

const list = { verb: 'list', resource: 'configmaps', namespace: 'demo' };

describe('toCliError', () => {
  it('a 400 (a selector the server cannot parse) is a usage error, exit 2, naming the request', () => {
    const err = toCliError(new ApiError("unable to parse requirement: found 'b'", { code: 400, reason: 'BadRequest', request: list }));
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(ExitCode.Usage);
    expect((err as UsageError).message).toBe(
      "the API server rejected list configmaps in namespace demo (400 BadRequest): unable to parse requirement: found 'b'",
    );
  });

  it('a 422 (an invalid value) is a usage error too', () => {
    const err = toCliError(new ApiError('spec.replicas: Invalid value: -1', { code: 422, reason: 'Invalid' }));
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('the API server rejected the request (422 Invalid): spec.replicas: Invalid value: -1');
  });

  it('a 403 stays a cluster error, exit 3, with the kubectl auth can-i line', () => {
    const err = toCliError(new ApiError('forbidden', { code: 403, reason: 'Forbidden', request: { ...list, user: 'u' } })) as ClusterError;
    expect(err).toBeInstanceOf(ClusterError);
    expect(err.exitCode).toBe(ExitCode.Cluster);
    expect(err.message).toBe('forbidden: user "u" may not list configmaps in namespace demo (403)');
    expect(err.hint).toBe('confirm with: kubectl auth can-i list configmaps -n demo');
  });

  it('a failed certificate check or TLS handshake says TLS, with the flags that fix it; a refused connection does not', () => {
    for (const code of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'ERR_SSL_WRONG_VERSION_NUMBER']) {
      const err = toCliError(new ApiError('tls', { code: 0, networkCode: code }), { server: 'https://127.0.0.1:6443' }) as ClusterError;
      expect(err.message).toBe(`TLS verification of the API server at https://127.0.0.1:6443 failed (${code})`);
      expect(err.hint).toMatch(/--certificate-authority/);
    }
    const refused = toCliError(new ApiError('refused', { code: 0, networkCode: 'ECONNREFUSED' }), { server: 'https://127.0.0.1:6443' }) as ClusterError;
    expect(refused.message).toBe('the API server at https://127.0.0.1:6443 is unreachable (ECONNREFUSED)');
  });

  it('a 500 stays a cluster error', () => {
    expect(toCliError(new ApiError('etcd is sad', { code: 500, request: list }))).toBeInstanceOf(ClusterError);
  });
});
