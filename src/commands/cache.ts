/**
 * `kubectl informer-trace cache RESOURCE`: run a shared informer until its cache has synced (and,
 * with --for, keep it watching), then print the cache and its index values. A way to check what an
 * informer sees against `kubectl get`. With -o ndjson it streams the deltas the informer applies
 * (the initial list, then, with --watch, every change, relist, resync and watch restart); --verify
 * compares the cache with the API server at the same resourceVersion. The table, -o name and the
 * lines on stderr are escaped (src/util/escape.ts): names, index values and messages are the
 * cluster's; json, yaml and ndjson print them exactly.
 */
import { Command } from 'commander';
import { realClock } from '../clock.js';
import { collect, durationFlag, mergedOptions, positiveDurationFlag, requireOneNamespaceScope, syncTimeoutFlag } from '../cli/options.js';
import { addConnectionFlags, connectionFlags } from '../cli/connection-flags.js';
import { say, sayInformerWarnings, type CommandIO } from '../cli/io.js';
import { chooseOutput, outputOption } from '../cli/output-format.js';
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
  runUntilSynced,
  stripManagedFields,
  verifyCache,
  type CacheDifference,
  type IndexFunc,
  type Indexer,
  type Indexers,
  type InformerEvent,
} from '../informer/index.js';
import { ApiError, connect, groupResource, ResourceListerWatcher, type Kube, type KubeObject, type ResourceInfo } from '../kube/index.js';
import { cacheKey, type IndexValues } from '../output/cache-table.js';
import { formatDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { CACHE_SINKS, type CacheOpened, type CacheOutput } from './cache-sinks.js';

interface CacheOptions {
  namespace?: string;
  allNamespaces?: boolean;
  selector?: string;
  fieldSelector?: string;
  index: string[];
  byIndex?: string;
  for?: string;
  output?: CacheOutput;
  watch?: boolean;
  resync?: string;
  verify?: boolean;
  verifyEvery?: string;
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
    .addOption(
      outputOption(
        CACHE_SINKS,
        'tui: the live view (default on a terminal); table (default otherwise), json, yaml or name (kind/name, as kubectl get -o name): the cache once; ndjson: one line per delta',
      ),
    )
    .option('-w, --watch', 'with -o ndjson: after the initial state, stream every delta until interrupted (or --for ends it)')
    .option('--resync <duration>', 'resync period: the informer re-delivers its cache as Sync deltas this often (e.g. 30s)')
    .option(
      '--verify',
      "at the end, list the resource fresh from the API server at the cache's resourceVersion and report every key or resourceVersion that differs (exit 1 when any)",
    )
    .option('--verify-every <duration>', 'with --watch or --for: also compare this often while watching (implies --verify)')
    .option('--keys-only', 'print only keys and resourceVersions')
    .option('--metadata-only', 'watch PartialObjectMetadata only (always on for secrets)')
    .option('--sync-timeout <duration>', 'how long to wait for the cache to sync', '60s')
    .addHelpText(
      'after',
      '\nExamples:\n  kubectl informer-trace cache pods -A --index node=spec.nodeName --by-index node=kwok-node-0\n  kubectl informer-trace cache cm -n demo -o json --keys-only\n  kubectl informer-trace cache cm -n demo --watch -o ndjson --index app=metadata.labels.app\n  kubectl informer-trace cache pods -A --for 5m --verify-every 1m -o ndjson\n',
    );
  addConnectionFlags(cmd);
  cmd.action(async (resource: string, _local: CacheOptions, command: Command) => {
    // Connection flags may stand before or after the subcommand; merge them with the root's.
    const opts = mergedOptions<CacheOptions>(command);
    const plan = validate(opts, io);
    const kube = connect(connectionFlags(opts));
    const info = await listableResource(kube, resource);
    const { informer, namespace } = cacheInformer(kube, info, opts, plan, io);
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    io.signal.addEventListener('abort', stop, { once: true });
    // Opened before the informer runs, so a stream or the live view has the initial list's deltas too.
    const sink = CACHE_SINKS[plan.output].open(informer, { io, info, namespace, ...plan, keysOnly: Boolean(opts.keysOnly), signal: controller.signal });
    const verify = async (): Promise<void> => {
      const matches = await verifyAgainstServer(informer, info, sink, io, controller.signal);
      if (!matches) setExitCode(ExitCode.CheckFailed);
    };
    let offWarnings: (() => void) | undefined;
    try {
      await fillCache(kube, informer, info, opts, plan, io, controller.signal);
      // After the sync too, the informer's warnings (a lost or stalled watch) go to stderr, one line each; the live view shows them.
      if (sink.screen) await sink.screen();
      else {
        offWarnings = informer.onEvent(sayInformerWarnings(io));
        await keepWatching(plan, io, controller.signal, verify);
      }
      await sink.end(() => {
        const indexer = informer.getIndexer();
        const items = selectItems(indexer, plan, info, io, setExitCode);
        return { items, indexes: indexValues(indexer, plan.customIndexNames), resourceVersion: informer.lastSyncResourceVersion() };
      });
      // Ctrl+C ends a watch; there is no "end" left to compare at.
      if (plan.verify && !controller.signal.aborted) await verify();
    } finally {
      offWarnings?.();
      sink.close();
      io.signal.removeEventListener('abort', stop);
      controller.abort();
    }
  });
  return cmd;
}

/** The resource type a user named, if an informer can follow it (list and watch). */
async function listableResource(kube: Kube, resource: string): Promise<ResourceInfo> {
  const info = await kube.discovery.resolve(resource);
  if (!info.verbs.includes('list') || !info.verbs.includes('watch')) {
    // Discovery's names are the API server's: escaped like every line it may say.
    throw new UsageError(escapeTerminal(`${groupResource(info)} cannot be listed and watched (verbs: ${info.verbs.join(', ') || 'none'})`));
  }
  return info;
}

/** The informer the flags ask for: its namespace, selectors, indexes, and what it keeps of each object. */
function cacheInformer(
  kube: Kube,
  info: ResourceInfo,
  opts: CacheOptions,
  plan: Plan,
  io: CommandIO,
): { informer: SharedIndexInformer; namespace: string | undefined } {
  const isSecret = info.group === '' && info.resource === 'secrets';
  if (isSecret && !opts.metadataOnly) io.stderr.write('note: secrets are watched as metadata only; their data is never fetched or printed\n');
  const metaOnly = Boolean(opts.metadataOnly) || isSecret;
  const namespace = info.namespaced && !opts.allNamespaces ? kube.connection.namespace : undefined;
  const lw = new ResourceListerWatcher(kube.client, info, {
    namespace,
    labelSelector: opts.selector,
    fieldSelector: opts.fieldSelector,
    metadataOnly: metaOnly,
    // Every object is printed (or drawn) and indexed by spec.nodeName: decoded whole at once.
    deferSpecStatus: false,
  });
  const informer = new SharedIndexInformer(lw, {
    indexers: plan.indexers,
    resyncPeriod: plan.resyncMs,
    // A Secret made by `kubectl apply` carries its data in the last-applied annotation too.
    transform: isSecret
      ? chainTransforms(metadataOnly, stripManagedFields, dropLastAppliedConfiguration)
      : metaOnly
        ? chainTransforms(metadataOnly, stripManagedFields)
        : stripManagedFields,
  });
  // Resync queues Sync deltas only for handlers due for one: this one asks for every period.
  if (plan.resyncMs > 0) informer.addEventHandler({}, { name: 'resync', resyncPeriod: plan.resyncMs });
  return { informer, namespace };
}

/** Runs the informer until its cache has synced, saying how that went, then (--for) keeps it watching. */
async function fillCache(
  kube: Kube,
  informer: SharedIndexInformer,
  info: ResourceInfo,
  opts: CacheOptions,
  plan: Plan,
  io: CommandIO,
  signal: AbortSignal,
): Promise<void> {
  const started = realClock.now();
  const progress = (e: InformerEvent): void => {
    if (e.level === 'warning' || e.level === 'error' || e.kind === 'listed' || e.kind === 'synced')
      say(io, `${e.kind === 'synced' ? '' : `${e.level}: `}${e.message}`);
  };
  await runUntilSynced(kube, [informer], { signal, timeoutMs: plan.syncTimeoutMs, onEvent: progress }).catch((err: unknown) => {
    throw explainSelectorError(err, opts);
  });
  const stats = informer.stats();
  say(
    io,
    `synced ${stats.objects} ${groupResource(info)} in ${formatDuration(realClock.now() - started)} (${stats.listRequests} list request${stats.listRequests === 1 ? '' : 's'}, resourceVersion ${stats.lastSyncResourceVersion})`,
  );
}

/**
 * After the sync: keeps the informer watching for --for, or with --watch until interrupted,
 * comparing with the API server every --verify-every meanwhile.
 */
async function keepWatching(plan: Plan, io: CommandIO, signal: AbortSignal, verify: () => Promise<void>): Promise<void> {
  if (plan.forMs <= 0 && !plan.watch) return;
  io.stderr.write(plan.forMs > 0 ? `watching for ${formatDuration(plan.forMs)}…\n` : 'watching (Ctrl+C to stop)…\n');
  const end = plan.forMs > 0 ? realClock.now() + plan.forMs : Infinity;
  for (;;) {
    const left = end - realClock.now();
    if (signal.aborted || left <= 0) return;
    const step = plan.verifyEveryMs > 0 ? Math.min(plan.verifyEveryMs, left) : left;
    await realClock.sleep(step === Infinity ? 2 ** 31 - 1 : step, signal);
    if (plan.verifyEveryMs > 0 && !signal.aborted && realClock.now() < end) await verify();
  }
}

/**
 * --verify: compares the cache with a list at its resourceVersion; says so on stderr (and, with
 * -o ndjson, as a "verify" line). True when nothing differs.
 */
async function verifyAgainstServer(informer: SharedIndexInformer, info: ResourceInfo, sink: CacheOpened, io: CommandIO, signal: AbortSignal): Promise<boolean> {
  const result = await verifyCache(informer, { signal, clock: realClock });
  const what = groupResource(info);
  sink.verified(result);
  const diffs = result.differences;
  if (diffs.length === 0) {
    say(io, `verify: the cache matches the API server at resourceVersion ${result.resourceVersion} (${result.listed} ${what})`);
    return true;
  }
  say(
    io,
    `verify: ${diffs.length} difference${diffs.length === 1 ? '' : 's'} with the API server at resourceVersion ${result.resourceVersion} (${result.cached} cached, ${result.listed} listed):`,
  );
  for (const d of diffs.slice(0, 20)) say(io, `  ${describeDifference(d)}`);
  if (diffs.length > 20) io.stderr.write(`  … and ${diffs.length - 20} more\n`);
  return false;
}

function describeDifference(d: CacheDifference): string {
  switch (d.problem) {
    case 'missing':
      return `missing in cache: ${d.key} (server resourceVersion ${d.serverResourceVersion})`;
    case 'extra':
      return `extra in cache: ${d.key} (cached resourceVersion ${d.cacheResourceVersion}, gone from the server)`;
    case 'stale':
      return `stale: ${d.key} (cached resourceVersion ${d.cacheResourceVersion}, server ${d.serverResourceVersion})`;
  }
}

/**
 * The objects to print, in the API server's order: those --by-index maps to its value (none found
 * is exit 1, with the values there are), else the whole cache.
 */
function selectItems(indexer: Indexer, plan: Plan, info: ResourceInfo, io: CommandIO, setExitCode: (code: ExitCode) => void): KubeObject[] {
  let items: KubeObject[];
  if (plan.byIndex) {
    items = indexer.byIndex(plan.byIndex.name, plan.byIndex.value) as KubeObject[];
    if (items.length === 0) {
      setExitCode(ExitCode.CheckFailed);
      say(
        io,
        `no ${groupResource(info)} under index ${plan.byIndex.name}=${plan.byIndex.value}; values present: ${indexer.listIndexFuncValues(plan.byIndex.name).sort().slice(0, 10).join(', ') || 'none'}`,
      );
    }
  } else {
    items = indexer.list() as KubeObject[];
  }
  // Byte order of "namespace/name" is the API server's (etcd's) order, so rows line up with kubectl get.
  return [...items].sort((a, b) => compareKeys(cacheKey(a), cacheKey(b)));
}

/** Each --index's values and the keys under each, sorted. */
function indexValues(indexer: Indexer, names: readonly string[]): IndexValues {
  const indexes: IndexValues = {};
  for (const name of names) {
    const values: Record<string, string[]> = {};
    for (const value of indexer.listIndexFuncValues(name).sort()) values[value] = indexer.indexKeys(name, value);
    indexes[name] = values;
  }
  return indexes;
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
  if (api?.code !== 400 || (!opts.selector && !opts.fieldSelector)) return err;
  const field = opts.fieldSelector !== undefined && (opts.selector === undefined || /field/i.test(api.message));
  const [flag, value] = field ? ['--field-selector', opts.fieldSelector] : ['-l/--selector', opts.selector];
  return new UsageError(`invalid ${flag} ${JSON.stringify(value)}: the API server says: ${escapeTerminal(api.message)}`, {
    hint: field
      ? 'field selectors look like metadata.name=web or status.phase!=Running; each resource supports only a few fields'
      : "label selectors look like app=web, tier!=db, 'env in (prod,staging)', !legacy",
    cause: api,
  });
}

interface Plan {
  output: CacheOutput;
  watch: boolean;
  resyncMs: number;
  verify: boolean;
  verifyEveryMs: number;
  indexers: Indexers;
  customIndexNames: string[];
  byIndex: { name: string; value: string } | undefined;
  forMs: number;
  syncTimeoutMs: number;
}

/** Every flag checked before any request is sent. */
function validate(opts: CacheOptions, io: CommandIO): Plan {
  requireOneNamespaceScope(opts);
  const indexers: Indexers = { ...builtInIndexes };
  const customIndexNames: string[] = [];
  for (const spec of opts.index) {
    const eq = spec.indexOf('=');
    if (eq <= 0 || eq === spec.length - 1)
      throw new UsageError(`--index "${spec}" is not NAME=FIELD.PATH`, { hint: 'e.g. --index node=spec.nodeName or --index app=metadata.labels.app' });
    const name = spec.slice(0, eq);
    const path = spec.slice(eq + 1);
    if (indexers[name])
      throw new UsageError(`--index name "${name}" is already taken`, { hint: `built-in indexes: ${Object.keys(builtInIndexes).join(', ')}` });
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
      throw new UsageError(`--by-index: no index named "${byIndex.name}"`, {
        hint: `indexes: ${Object.keys(indexers).join(', ')} (add one with --index NAME=FIELD.PATH)`,
      });
    }
  }
  const duration = durationFlag;
  const output = chooseOutput(CACHE_SINKS, opts.output, 'table', io);
  const watch = Boolean(opts.watch);
  if (watch && !CACHE_SINKS[output].streams) {
    throw new UsageError(`--watch streams deltas: use it with -o ndjson (-o ${output} prints the cache once)`, {
      hint: 'to watch a while before that print, use --for DURATION',
    });
  }
  const forMs = duration('--for', opts.for);
  const verifyEveryMs = positiveDurationFlag('--verify-every', opts.verifyEvery) ?? 0;
  if (verifyEveryMs > 0 && !watch && forMs <= 0) throw new UsageError('--verify-every compares while watching: add --watch or --for DURATION');
  const resyncMs = positiveDurationFlag('--resync', opts.resync) ?? 0;
  return {
    output,
    watch,
    resyncMs,
    verify: Boolean(opts.verify) || verifyEveryMs > 0,
    verifyEveryMs,
    indexers,
    customIndexNames,
    byIndex,
    forMs,
    syncTimeoutMs: syncTimeoutFlag(opts.syncTimeout),
  };
}
