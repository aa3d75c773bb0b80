/** Members of a set of objects (src/trace/set-session.ts) for the tests of its views: Deployments unless told. */
import type { ResourceInfo } from '../../src/kube/index.js';
import type { SetMember } from '../../src/trace/index.js';

export const DEPLOYMENTS: ResourceInfo = {
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
  shortNames: ['deploy'],
  singularName: 'deployment',
  verbs: ['get', 'list', 'watch', 'create', 'patch'],
};

/** A Deployment of namespace shop created at `appliedAt` and ready, with what `o` changes. */
export function setMember(index: number, name: string, appliedAt: number, o: Partial<SetMember> = {}): SetMember {
  return {
    index,
    source: `app.yaml: document ${index + 1}`,
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    namespace: 'shop',
    name,
    step: 'workloads',
    info: DEPLOYMENTS,
    state: 'ready',
    applied: 'created',
    appliedAt,
    ...o,
  };
}
