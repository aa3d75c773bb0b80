/**
 * How the local cluster publishes its kube-controller-manager and kube-scheduler metrics endpoints,
 * the way kube-prometheus expects a cluster to (its ServiceMonitors select Services in kube-system
 * labelled `app.kubernetes.io/name=<component>` and scrape their `https-metrics` port): one
 * selector-less headless Service per component, and one EndpointSlice per running instance
 * pointing at its loopback port. `kubectl informer-trace top` finds them as it finds them on any
 * cluster, so it needs no flags here.
 *
 * The API server refuses loopback IPs in EndpointSlices (and Endpoints), so the address is a name
 * under `.localhost`, which RFC 6761 reserves for the loopback interface: an FQDN slice
 * `kube-controller-manager.localhost`, read back as 127.0.0.1.
 */

export type PublishedComponent = 'kube-controller-manager' | 'kube-scheduler';

/** The label kube-prometheus' ServiceMonitors select on. */
const COMPONENT_LABEL = 'app.kubernetes.io/name';
export const MANAGED_BY = 'informer-trace-local-cluster';
const PORT_NAME = 'https-metrics';
/** The ports kubeadm gives them; the Service's own port number is only nominal (it has no ClusterIP). */
const NOMINAL_PORT: Record<PublishedComponent, number> = { 'kube-controller-manager': 10257, 'kube-scheduler': 10259 };

export function componentService(component: PublishedComponent): object {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: component, namespace: 'kube-system', labels: { [COMPONENT_LABEL]: component } },
    spec: { clusterIP: 'None', ports: [{ name: PORT_NAME, port: NOMINAL_PORT[component], targetPort: NOMINAL_PORT[component], protocol: 'TCP' }] },
  };
}

/** The slice of one instance: `<component>-<instance>` at `<component>.localhost`:`port`. */
export function componentSlice(component: PublishedComponent, instance: number, port: number): object {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${component}-${instance}`,
      namespace: 'kube-system',
      labels: { 'kubernetes.io/service-name': component, 'endpointslice.kubernetes.io/managed-by': MANAGED_BY, [COMPONENT_LABEL]: component },
    },
    addressType: 'FQDN',
    endpoints: [{ addresses: [`${component}.localhost`], conditions: { ready: true } }],
    ports: [{ name: PORT_NAME, port, protocol: 'TCP' }],
  };
}

export function slicePath(component: PublishedComponent, instance: number): string {
  return `/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices/${component}-${instance}`;
}
