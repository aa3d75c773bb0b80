/**
 * `npm run demo`: uses the cluster the kubeconfig points at, or — when none is configured — builds
 * and starts the local control plane; makes sure a demo Deployment exists (namespace demo, web,
 * 3 replicas; it says what it creates), then runs `kubectl informer-trace deployment/web --restart`
 * on it: the whole rolling update, hop by hop. Extra arguments go to the trace (e.g. `-- -o json`).
 */
import { realClock } from '../src/clock.js';
import { LocalCluster } from './cluster/launcher.js';
import { processIO } from '../src/cli/io.js';
import { runProgram } from '../src/cli/run.js';
import { createInformerTraceProgram } from '../src/commands/informer-trace.js';
import { connect, hasConfiguredCluster, isNotFound, type Kube } from '../src/kube/index.js';

const namespace = 'demo';
const name = 'web';

async function ensure(kube: Kube, path: string, create: string, body: unknown, what: string): Promise<void> {
  try {
    await kube.client.json(path);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await kube.client.json(create, { method: 'POST', body });
    process.stderr.write(`demo: created ${what}\n`);
  }
}

async function main(): Promise<number> {
  if (!hasConfiguredCluster()) {
    process.stderr.write('demo: no kubeconfig configured; using the local control plane\n');
    const cluster = await LocalCluster.up();
    process.env.KUBECONFIG = cluster.kubeconfigPath;
  }
  const kube = connect({});
  process.stderr.write(`demo: cluster ${kube.connection.server} (context ${kube.connection.contextName})\n`);
  await ensure(
    kube,
    `/api/v1/namespaces/${namespace}`,
    '/api/v1/namespaces',
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    `namespace ${namespace}`,
  );
  await ensure(
    kube,
    `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`,
    `/apis/apps/v1/namespaces/${namespace}/deployments`,
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, labels: { app: name } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, image: 'registry.k8s.io/pause:3.10' }] } },
      },
    },
    `deployment ${namespace}/${name} (3 replicas)`,
  );

  // Wait for the Deployment to be available, so the restart traces a whole rolling update.
  for (let i = 0; i < 240; i++) {
    const d = await kube.client.json<{ status?: { availableReplicas?: number } }>(`/apis/apps/v1/namespaces/${namespace}/deployments/${name}`);
    if (d.status?.availableReplicas === 3) break;
    if (i === 0) process.stderr.write(`demo: waiting for ${namespace}/${name} to be available\n`);
    await realClock.sleep(500);
  }
  const argv = [`deployment/${name}`, '-n', namespace, '--restart', ...process.argv.slice(2)];
  process.stderr.write(`demo: kubectl informer-trace ${argv.join(' ')}\n`);
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  return runProgram(createInformerTraceProgram, argv, processIO(controller.signal));
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
