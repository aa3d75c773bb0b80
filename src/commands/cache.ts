/**
 * `kubectl informer-trace cache RESOURCE`: run a shared informer until its cache has synced (and,
 * with --for, keep it watching), then print the cache and its index values. A way to check what an
 * informer sees against `kubectl get`.
 */
import { Command, Option } from 'commander';
import { durationFlag } from '../cli/duration-flag.js';
import { addConnectionFlags, connectionFlags } from '../cli/connection-flags.js';
import { mergedOptions } from '../cli/options.js';
import type { CommandIO } from '../cli/io.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import {
  ControllerUIDIndex,
  NamespaceIndex,
  NodeNameIndex,
  OwnerUIDIndex,
  SharedIndexInformer,
  chainTransforms,
  controllerUIDIndexFunc,
  dropLastAppliedConfiguration,
  fieldPathIndexFunc,
  metaNamespaceIndexFunc,
  metadataOnly,
  nodeNameIndexFunc,
  ownerUIDIndexFunc,
  parseFieldPath,
  stripManagedFields,
  type IndexFunc,
  type Indexers,
  type InformerEvent,
} from '../informer/index.js';
import { ApiError, connect, groupResource, ResourceListerWatcher, type KubeObject } from '../kube/index.js';
import { age, renderStructured } from '../output/format.js';
import { renderTable } from '../output/table.js';
import { formatDuration } from '../util/duration.js';
import { runUntilSynced } from './informer-session.js';

interface CacheOptions {
  namespace?: string;
  allNamespaces?: boolean;
  selector?: string;
  fieldSelector?: string;
  index: string[];
  byIndex?: string;
  for?: string;
  output: 'table' | 'json' | 'yaml';
  keysOnly?: boolean;
  metadataOnly?: boolean;
  syncTimeout: string;
}

const builtInIndexes: Record<string, IndexFunc> = {
  [NamespaceIndex]: metaNamespaceIndexFunc,
  [ControllerUIDIndex]: controllerUIDIndexFunc,
  [OwnerUIDIndex]: ownerUIDIndexFunc,
  [NodeNameIndex]: nodeNameIndexFunc,
};

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function createCacheCommand(io: CommandIO, setExitCode: (code: ExitCode) => void): Command {
  const cmd = new Command('cache')
    .description('run a shared informer until synced, then print its cache and index values')
    .argument('<resource>', 'resource type as kubectl takes it: pods, deploy, deployments.apps, a CRD plural or short name')
    .option('-A, --all-namespaces', 'list across all namespaces')
    .option('-l, --selector <selector>', 'label selector, e.g. app=web,tier!=db')
    .option('--field-selector <selector>', 'field selector, e.g. spec.nodeName=node-1')
    .option('--index <name=field.path>', 'add a custom index on a field path (repeatable), e.g. node=spec.nodeName', collect, [])
    .option('--by-index <name=value>', `print only the objects an index maps to this value (built-in indexes: ${Object.keys(builtInIndexes).join(', ')})`)
    .option('--for <duration>', 'after the cache synced, keep watching this long before printing (e.g. 30s)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json', 'yaml']).default('table'))
    .option('--keys-only', 'print only keys and resourceVersions')
    .option('--metadata-only', 'watch PartialObjectMetadata only (always on for secrets)')
    .option('--sync-timeout <duration>', 'how long to wait for the cache to sync', '60s')
    .addHelpText('after', '\nExamples:\n  kubectl informer-trace cache pods -A --index node=spec.nodeName --by-index node=kwok-node-0\n  kubectl informer-trace cache cm -n demo -o json --keys-only\n');
  addConnectionFlags(cmd);
  cmd.action(async (resource: string, _local: CacheOptions, command: Command) => {
    // Connection flags may stand before or after the subcommand; merge them with the root's.
    const opts = mergedOptions<CacheOptions>(command);
    const plan = validate(opts);
    const kube = connect(connectionFlags(opts as unknown as Record<string, unknown>));
    const info = await kube.discovery.resolve(resource);
    if (!info.verbs.includes('list') || !info.verbs.includes('watch')) {
      throw new UsageError(`${groupResource(info)} cannot be listed and watched (verbs: ${info.verbs.join(', ') || 'none'})`);
    }
    const isSecret = info.group === '' && info.resource === 'secrets';
    if (isSecret && !opts.metadataOnly) io.stderr.write('note: secrets are watched as metadata only; their data is never fetched or printed\n');
    const metaOnly = Boolean(opts.metadataOnly) || isSecret;
    const namespace = info.namespaced && !opts.allNamespaces ? kube.connection.namespace : undefined;
    const lw = new ResourceListerWatcher(kube.client, info, {
      namespace,
      labelSelector: opts.selector,
      fieldSelector: opts.fieldSelector,
      metadataOnly: metaOnly,
    });
    const informer = new SharedIndexInformer(lw, {
      indexers: plan.indexers,
      // A Secret made by `kubectl apply` carries its data in the last-applied annotation too.
      transform: isSecret
        ? chainTransforms(metadataOnly, stripManagedFields, dropLastAppliedConfiguration)
        : metaOnly
          ? chainTransforms(metadataOnly, stripManagedFields)
          : stripManagedFields,
    });
    const started = Date.now();
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    io.signal.addEventListener('abort', stop, { once: true });
    const progress = (e: InformerEvent): void => {
      if (e.level === 'warning' || e.level === 'error' || e.kind === 'listed' || e.kind === 'synced') io.stderr.write(`${e.kind === 'synced' ? '' : `${e.level}: `}${e.message}\n`);
    };
    try {
      await runUntilSynced(kube, [informer], { signal: controller.signal, timeoutMs: plan.syncTimeoutMs, onEvent: progress }).catch((err: unknown) => {
        throw explainSelectorError(err, opts);
      });
      const stats = informer.stats();
      io.stderr.write(`synced ${stats.objects} ${groupResource(info)} in ${formatDuration(Date.now() - started)} (${stats.listRequests} list request${stats.listRequests === 1 ? '' : 's'}, resourceVersion ${stats.lastSyncResourceVersion})\n`);
      if (plan.forMs > 0) {
        io.stderr.write(`watching for ${formatDuration(plan.forMs)}…\n`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, plan.forMs);
          io.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
        });
      }
      const indexer = informer.getIndexer();
      let items: KubeObject[];
      if (plan.byIndex) {
        items = indexer.byIndex(plan.byIndex.name, plan.byIndex.value) as KubeObject[];
        if (items.length === 0) {
          setExitCode(ExitCode.CheckFailed);
          io.stderr.write(`no ${groupResource(info)} under index ${plan.byIndex.name}=${plan.byIndex.value}; values present: ${indexer.listIndexFuncValues(plan.byIndex.name).sort().slice(0, 10).join(', ') || 'none'}\n`);
        }
      } else {
        items = indexer.list() as KubeObject[];
      }
      // Byte order of "namespace/name" is the API server's (etcd's) order, so rows line up with kubectl get.
      items = [...items].sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
      const rv = informer.lastSyncResourceVersion();
      const indexes: Record<string, Record<string, string[]>> = {};
      for (const name of plan.customIndexNames) {
        indexes[name] = {};
        for (const value of indexer.listIndexFuncValues(name).sort()) indexes[name]![value] = indexer.indexKeys(name, value);
      }
      if (items.length === 0 && opts.output === 'table' && !plan.byIndex) {
        io.stderr.write(`No resources found${namespace ? ` in ${namespace} namespace` : ''}.\n`);
      }
      io.stdout.write(render(items, indexes, rv, opts, info.namespaced));
    } finally {
      io.signal.removeEventListener('abort', stop);
      controller.abort();
    }
  });
  return cmd;
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The API server answers a selector it cannot parse with 400 BadRequest; toCliError already makes
 * that a usage error (exit 2). Here we know the flags, so name the selector that was refused.
 */
function explainSelectorError(err: unknown, opts: CacheOptions): unknown {
  const api = err instanceof UsageError && err.cause instanceof ApiError ? err.cause : undefined;
  if (!api || api.code !== 400 || (!opts.selector && !opts.fieldSelector)) return err;
  const field = opts.fieldSelector !== undefined && (opts.selector === undefined || /field/i.test(api.message));
  const [flag, value] = field ? ['--field-selector', opts.fieldSelector] : ['-l/--selector', opts.selector];
  return new UsageError(`invalid ${flag} ${JSON.stringify(value)}: the API server says: ${api.message}`, {
    hint: field
      ? 'field selectors look like metadata.name=web or status.phase!=Running; each resource supports only a few fields'
      : "label selectors look like app=web, tier!=db, 'env in (prod,staging)', !legacy",
    cause: api,
  });
}

function keyOf(o: KubeObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata.name ?? '');
}

interface Plan {
  indexers: Indexers;
  customIndexNames: string[];
  byIndex: { name: string; value: string } | undefined;
  forMs: number;
  syncTimeoutMs: number;
}

/** Every flag checked before any request is sent. */
function validate(opts: CacheOptions): Plan {
  if (opts.allNamespaces && opts.namespace) throw new UsageError('--namespace and --all-namespaces cannot be used together');
  const indexers: Indexers = { ...builtInIndexes };
  const customIndexNames: string[] = [];
  for (const spec of opts.index) {
    const eq = spec.indexOf('=');
    if (eq <= 0 || eq === spec.length - 1) throw new UsageError(`--index "${spec}" is not NAME=FIELD.PATH`, { hint: 'e.g. --index node=spec.nodeName or --index app=metadata.labels.app' });
    const name = spec.slice(0, eq);
    const path = spec.slice(eq + 1);
    if (indexers[name]) throw new UsageError(`--index name "${name}" is already taken`, { hint: `built-in indexes: ${Object.keys(builtInIndexes).join(', ')}` });
    try {
      parseFieldPath(path);
    } catch (err) {
      throw new UsageError(`--index ${name}: ${(err as Error).message}`);
    }
    indexers[name] = fieldPathIndexFunc(path);
    customIndexNames.push(name);
  }
  let byIndex: Plan['byIndex'];
  if (opts.byIndex !== undefined) {
    const eq = opts.byIndex.indexOf('=');
    if (eq <= 0) throw new UsageError(`--by-index "${opts.byIndex}" is not NAME=VALUE`);
    byIndex = { name: opts.byIndex.slice(0, eq), value: opts.byIndex.slice(eq + 1) };
    if (!indexers[byIndex.name]) {
      throw new UsageError(`--by-index: no index named "${byIndex.name}"`, { hint: `indexes: ${Object.keys(indexers).join(', ')} (add one with --index NAME=FIELD.PATH)` });
    }
  }
  const duration = durationFlag;
  return { indexers, customIndexNames, byIndex, forMs: duration('--for', opts.for), syncTimeoutMs: duration('--sync-timeout', opts.syncTimeout) || 60_000 };
}

function render(items: KubeObject[], indexes: Record<string, Record<string, string[]>>, rv: string, opts: CacheOptions, namespaced: boolean): string {
  if (opts.output === 'json' || opts.output === 'yaml') {
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      metadata: { resourceVersion: rv },
      items: opts.keysOnly ? items.map((o) => ({ key: keyOf(o), resourceVersion: o.metadata.resourceVersion ?? '' })) : items,
      ...(Object.keys(indexes).length ? { indexes } : {}),
    };
    return renderStructured(list, opts.output);
  }
  const now = Date.now();
  const head = [...(namespaced ? ['namespace'] : []), 'name', 'resourceversion', ...(opts.keysOnly ? [] : ['age'])];
  const rows = items.map((o) => [
    ...(namespaced ? [o.metadata.namespace ?? ''] : []),
    o.metadata.name ?? '',
    o.metadata.resourceVersion ?? '',
    ...(opts.keysOnly ? [] : [age(o.metadata.creationTimestamp, now)]),
  ]);
  let out = items.length ? `${renderTable(head, rows)}\n` : '';
  for (const [name, values] of Object.entries(indexes)) {
    out += `\n${renderTable(['index ' + name, 'keys'], Object.entries(values).map(([v, keys]) => [v, keys.length > 5 ? `${keys.slice(0, 5).join(', ')} (+${keys.length - 5})` : keys.join(', ')]))}\n`;
  }
  return out;
}

