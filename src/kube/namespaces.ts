import { isNotFound } from './api-error.js';
import type { KubeClient } from './client.js';

/**
 * Whether namespace `name` exists: false on a 404, undefined when it cannot be told (reading
 * namespaces is forbidden, the server is unreachable). For saying a missing namespace by its name
 * rather than as an empty list or a missing object in it.
 */
export function namespaceExists(client: KubeClient, name: string, signal?: AbortSignal): Promise<boolean | undefined> {
  return client.json(`/api/v1/namespaces/${encodeURIComponent(name)}`, { signal, describe: { verb: 'get', resource: 'namespaces', name } }).then(
    () => true,
    (err: unknown) => (isNotFound(err) ? false : undefined),
  );
}
