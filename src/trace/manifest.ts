/**
 * The manifest of an --apply trigger: one Kubernetes object, as YAML or JSON, the way `kubectl
 * apply -f` reads a file. Only the shape is checked here; the server validates the rest.
 */
import { parseAllDocuments } from 'yaml';
import { UsageError } from '../errors.js';
import type { Kube, KubeObject, ResourceInfo } from '../kube/index.js';

/** Parses `text` (read from `source`, a file name or "stdin") into one object with apiVersion, kind and name. */
export function parseManifest(text: string, source: string): KubeObject {
  const all = parseAllDocuments(text);
  const bad = all.find((d) => d.errors.length > 0);
  if (bad) throw new UsageError(`${source}: not valid YAML or JSON: ${bad.errors[0]!.message.split('\n')[0]}`);
  // Empty documents (around a `---`) hold nothing.
  const docs = all.map((d) => d.toJS() as unknown).filter((v) => v !== null && v !== undefined);
  if (docs.length !== 1)
    throw new UsageError(`${source}: holds ${docs.length} objects; --apply traces one object`, { hint: 'put the workload to trace in a file of its own' });
  const obj = docs[0] as Partial<KubeObject>;
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new UsageError(`${source}: not a Kubernetes object`);
  const missing = [!obj.apiVersion && 'apiVersion', !obj.kind && 'kind', !obj.metadata?.name && 'metadata.name'].filter(Boolean);
  if (missing.length > 0) throw new UsageError(`${source}: the object has no ${missing.join(', ')}`);
  if (/List$/.test(obj.kind!)) throw new UsageError(`${source}: a ${obj.kind}; --apply traces one object`);
  return obj as KubeObject;
}

/**
 * The namespace a manifest's object lands in: its own, else `defaultNamespace`. As `kubectl apply`
 * does, a -n that names another namespace than the manifest's is refused rather than chosen.
 */
export function manifestNamespace(
  manifest: KubeObject,
  source: string,
  defaultNamespace: string | undefined,
  namespaceFlag: string | undefined,
  flagName = '--namespace',
): string | undefined {
  const own = manifest.metadata.namespace;
  if (namespaceFlag !== undefined && own !== undefined && own !== namespaceFlag) {
    throw new UsageError(`${source}: the object's namespace "${own}" does not match ${flagName} "${namespaceFlag}"`);
  }
  return own ?? defaultNamespace;
}

/**
 * What applying a manifest traces: the resource its apiVersion and kind name on this server, and
 * the object with its namespace filled in (a namespaced object without one lands in
 * `defaultNamespace`, as with kubectl).
 */
export async function resolveManifest(
  kube: Kube,
  manifest: KubeObject,
  source: string,
  defaultNamespace: string | undefined,
): Promise<{ info: ResourceInfo; namespace: string | undefined; name: string; manifest: KubeObject }> {
  const info = await kube.discovery.forKind(manifest.apiVersion!, manifest.kind!);
  if (!info)
    throw new UsageError(`${source}: the server does not serve ${manifest.kind} in ${manifest.apiVersion}`, {
      hint: 'kubectl api-resources lists what it serves',
    });
  const namespace = info.namespaced ? (manifest.metadata.namespace ?? defaultNamespace) : undefined;
  const applied: KubeObject = info.namespaced ? { ...manifest, metadata: { ...manifest.metadata, namespace } } : manifest;
  return { info, namespace, name: manifest.metadata.name!, manifest: applied };
}
