/**
 * The writes the tool makes, only when a flag asks for them: merge patches of one object, or a
 * server-side apply of a manifest. Each returns the object as the server stored it, so the caller
 * can report the resourceVersion it wrote.
 */
import type { KubeClient } from './client.js';
import { resourcePath } from './lister-watcher.js';
import { groupResource, type KubeObject, type ResourceInfo } from './types.js';

export class ObjectWriter {
  constructor(private readonly client: KubeClient) {}

  /** RFC 7386 JSON merge patch. */
  mergePatch(resource: ResourceInfo, namespace: string | undefined, name: string, patch: unknown, signal?: AbortSignal): Promise<KubeObject> {
    return this.client.json<KubeObject>(resourcePath(resource, namespace, name), {
      method: 'PATCH',
      body: patch,
      contentType: 'application/merge-patch+json',
      signal,
      describe: { verb: 'patch', resource: groupResource(resource), namespace: resource.namespaced ? namespace : undefined, name },
    });
  }

  /**
   * Server-side apply, as `kubectl apply --server-side` does: the manifest is the whole intent of
   * `fieldManager`; the server creates the object or merges it, and refuses (409) to take over
   * fields another manager owns.
   */
  apply(
    resource: ResourceInfo,
    namespace: string | undefined,
    name: string,
    manifest: KubeObject,
    fieldManager: string,
    signal?: AbortSignal,
  ): Promise<KubeObject> {
    return this.client.json<KubeObject>(resourcePath(resource, namespace, name), {
      method: 'PATCH',
      query: { fieldManager },
      // JSON is YAML: the apply patch type takes either.
      body: manifest,
      contentType: 'application/apply-patch+yaml',
      signal,
      describe: { verb: 'patch', resource: groupResource(resource), namespace: resource.namespaced ? namespace : undefined, name },
    });
  }

  get(resource: ResourceInfo, namespace: string | undefined, name: string, signal?: AbortSignal): Promise<KubeObject> {
    return this.client.json<KubeObject>(resourcePath(resource, namespace, name), {
      signal,
      describe: { verb: 'get', resource: groupResource(resource), namespace: resource.namespaced ? namespace : undefined, name },
    });
  }
}
