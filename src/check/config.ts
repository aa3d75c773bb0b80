/**
 * Checks from a YAML file (`--config health.yaml`): several checks of any kind, run together.
 *
 *   checks:
 *     - kind: rollout
 *       target: deploy/web
 *       namespace: demo
 *       maxConverge: 60s
 *       maxHop: 20s
 *     - kind: rollout
 *       trigger: apply
 *       manifest: deploy/api.yaml      # relative to this file; the manifest names the target
 *       maxConverge: 2m
 *     - kind: lease
 *       lease: kube-system/kube-controller-manager
 *       maxRenewAge: 20s
 *       maxTransitions: 2
 *       window: 5m
 *     - kind: queue
 *       metrics: [https://127.0.0.1:10257/metrics]
 *       insecureSkipTlsVerify: true
 *       maxDepth: { deployment: 10 }
 *       maxRetryRate: 1/s
 *       window: 60s
 *
 *   healthRules: rules.yaml            # optional; relative to this file: readiness rules for the
 *                                      # rollout checks, read after --health-rules and before the library
 *
 * The keys are the command's flags in camelCase. Every problem in the file is reported at once,
 * each as FILE:LINE:COLUMN: checks[1].maxConverge: what is wrong and what would be right, from
 * the `yaml` package's node ranges; nothing is sent to the cluster when there is one.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { UsageError } from '../errors.js';
import { parseMetricsSpec } from '../metrics/index.js';
import { closest } from '../util/suggest.js';
import { fileManifests, readApply, readLease, readTarget, type ManifestInputs } from './flags.js';
import { readCount, readDuration, readQueueLimit, readRate } from './limits.js';
import { DEFAULT_WINDOW_MS, leaseSpec, queueSpec, rolloutSpec } from './spec-builders.js';
import type { CheckSpec, LeaseCheckSpec, MetricsAccess, QueueCheckSpec, QueueLimit, RolloutCheckSpec, RolloutTrigger, SpecOrigin } from './types.js';

/** A spec and, for one from a config file, where it is there: checks[2]. */
export interface PlacedSpec {
  spec: CheckSpec;
  path?: string | undefined;
}

export interface ConfigProblem {
  line: number;
  column: number;
  /** checks[1].maxConverge */
  path: string;
  message: string;
}

export interface ConfigDefaults {
  /** -n, or the context's namespace is used later when undefined. */
  namespace: string | undefined;
  /** The --metrics-* flags; a queue check's own keys override them. */
  access: MetricsAccess;
  /** How the manifests of `trigger: apply` checks are read; the files, by default. */
  manifests?: ManifestInputs | undefined;
}

const KEYS = {
  rollout: ['kind', 'name', 'target', 'namespace', 'trigger', 'replicas', 'manifest', 'maxConverge', 'maxHop', 'timeout'],
  lease: ['kind', 'name', 'lease', 'namespace', 'maxRenewAge', 'maxTransitions', 'window'],
  queue: ['kind', 'name', 'metrics', 'maxDepth', 'maxRetryRate', 'window', 'sampleInterval', 'insecureSkipTlsVerify', 'kubeconfigCredentials', 'scrapeTimeout'],
} as const;
type Kind = keyof typeof KEYS;

class Reader {
  readonly problems: ConfigProblem[] = [];

  constructor(
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
  ) {}

  pos(node: Node | Pair | null | undefined): { line: number; column: number } {
    const range =
      node && 'range' in node && node.range ? node.range : node && 'key' in node && (node.key as Node | null)?.range ? (node.key as Node).range : undefined;
    if (!range) return { line: 1, column: 1 };
    const p = this.lines.linePos(range[0]);
    return { line: p.line, column: p.col };
  }

  problem(node: Node | Pair | null | undefined, path: string, message: string): void {
    this.problems.push({ ...this.pos(node), path, message });
  }

  resolve(node: unknown): Node | null {
    if (isAlias(node)) return (node.resolve(this.doc) as Node | undefined) ?? null;
    return (node as Node | null) ?? null;
  }

  /** A scalar's text (strings, numbers and booleans as written); undefined after a problem. */
  text(node: unknown, path: string, what: string): string | undefined {
    const n = this.resolve(node);
    if (isScalar(n) && (typeof n.value === 'string' || typeof n.value === 'number')) return String(n.source ?? n.value);
    this.problem(n, path, `expected ${what}`);
    return undefined;
  }

  /** Runs a limits reader on a scalar, reporting its Error at the node. */
  read<T>(node: unknown, path: string, what: string, read: (text: string) => T): T | undefined {
    const n = this.resolve(node);
    const t = this.text(n, path, what);
    if (t === undefined) return undefined;
    try {
      return read(t);
    } catch (err) {
      this.problem(n, path, (err as Error).message);
      return undefined;
    }
  }

  duration(node: unknown, path: string): number | undefined {
    const n = this.resolve(node);
    if (isScalar(n) && typeof n.value === 'number') {
      this.problem(n, path, `${String(n.value)} has no unit: write e.g. ${String(n.value)}s or ${String(n.value)}ms`);
      return undefined;
    }
    return this.read(n, path, 'a duration (e.g. 30s, 2m)', (t) => readDuration(t));
  }

  bool(node: unknown, path: string): boolean | undefined {
    const n = this.resolve(node);
    if (isScalar(n) && typeof n.value === 'boolean') return n.value;
    this.problem(n, path, 'expected true or false');
    return undefined;
  }

  /** `{deployment: 10}`, `deployment=10`, `10`, or a list of those. */
  queueLimits(node: unknown, path: string, readValue: (v: string) => number, example: string): QueueLimit[] {
    const n = this.resolve(node);
    const out: QueueLimit[] = [];
    const one = (item: unknown, p: string): void => {
      const v = this.read(item, p, `a limit (e.g. ${example})`, (t) => readQueueLimit(t, readValue));
      if (v) out.push(v);
    };
    if (isMap(n)) {
      for (const pair of n.items) {
        const queue = this.text(pair.key, path, 'a workqueue name');
        if (queue === undefined) continue;
        const v = this.read(pair.value, `${path}.${queue}`, `a limit (e.g. ${example.replace(/^.*=/, '')})`, (t) => readQueueLimit(`${queue}=${t}`, readValue));
        if (v) out.push(v);
      }
    } else if (isSeq(n)) {
      n.items.forEach((item, i) => {
        one(item, `${path}[${i}]`);
      });
    } else {
      one(n, path);
    }
    return out;
  }

  strings(node: unknown, path: string, what: string): string[] {
    const n = this.resolve(node);
    if (isSeq(n)) {
      const out: string[] = [];
      n.items.forEach((item, i) => {
        const t = this.text(item, `${path}[${i}]`, what);
        if (t !== undefined) out.push(t);
      });
      if (out.length === 0 && n.items.length === 0) this.problem(n, path, `expected at least one ${what}`);
      return out;
    }
    const t = this.text(n, path, `${what} or a list of them`);
    return t === undefined ? [] : [t];
  }
}

/** Every problem of the file as one UsageError, in file order, each line FILE:LINE:COLUMN: PATH: message. */
export function configError(file: string, problems: readonly ConfigProblem[]): UsageError {
  const sorted = [...problems].sort((a, b) => a.line - b.line || a.column - b.column);
  const lines = sorted.map((p) => `  ${file}:${p.line}:${p.column}: ${p.path ? `${p.path}: ` : ''}${p.message}`);
  return new UsageError(`${file} is not a valid check config (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}`, {
    hint: 'see docs/ci.md for the format',
  });
}

/** The checks a config file holds, each with where it is, and every problem found in it. */
export interface ConfigChecks {
  file: string;
  checks: PlacedSpec[];
  problems: ConfigProblem[];
  /** `healthRules:`, resolved against the file's folder. */
  healthRules?: string | undefined;
}

/**
 * Reads every check in the file. A file that is not YAML, or not a map, is refused at once (a
 * UsageError); any other problem is returned with the checks that could be read, for the caller
 * to add what it finds across checks (two with one name) before refusing them all together.
 */
export function readConfig(text: string, file: string, defaults: ConfigDefaults): ConfigChecks {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e) => {
      const p = e.linePos?.[0] ?? (e.pos ? lines.linePos(e.pos[0]) : { line: 1, col: 1 });
      return { line: p.line, column: p.col, path: '', message: `YAML: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}` };
    });
    throw configError(file, problems);
  }
  const r = new Reader(doc, lines);
  const root = r.resolve(doc.contents);
  if (!isMap(root)) {
    r.problem(root, '', 'expected a map with a "checks:" list');
    throw configError(file, r.problems);
  }
  let checksNode: unknown;
  let healthRules: string | undefined;
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key === 'checks') checksNode = pair.value;
    else if (key === 'healthRules') {
      const path = r.text(pair.value, key, 'the path of a readiness rules file');
      if (path !== undefined) {
        healthRules = isAbsolute(path) ? path : join(dirname(file), path);
        if (!existsSync(healthRules)) r.problem(r.resolve(pair.value), key, `${healthRules}: no such file`);
      }
    } else r.problem(pair.key as Node, key, `unknown key${suggest(key, ['checks', 'healthRules'])}: the file holds "checks" and, optionally, "healthRules"`);
  }
  const checks: PlacedSpec[] = [];
  const list = r.resolve(checksNode);
  if (checksNode === undefined) r.problem(root, 'checks', 'missing: a list of checks, each with a kind (rollout, lease or queue)');
  else if (!isSeq(list) || list.items.length === 0) r.problem(list, 'checks', 'expected a non-empty list of checks');
  else
    list.items.forEach((item, i) => {
      const path = `checks[${i}]`;
      const spec = readCheck(r, r.resolve(item), path, file, defaults);
      if (spec) checks.push({ spec, path });
    });
  return { file, checks, problems: r.problems, healthRules };
}

function suggest(key: string, known: readonly string[]): string {
  const near = closest(key, [...known], 1);
  return near.length ? ` (did you mean "${near[0]}"?)` : '';
}

/** One check's map: its keys, read through the Reader with each problem at its key's path. */
class CheckEntry {
  private readonly values = new Map<string, { pair: Pair; value: unknown }>();

  constructor(
    readonly r: Reader,
    readonly node: YAMLMap,
    readonly path: string,
  ) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      this.values.set(key, { pair: pair as Pair, value: pair.value });
    }
  }

  keys(): string[] {
    return [...this.values.keys()];
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  value(key: string): unknown {
    return this.values.get(key)?.value;
  }

  keyNode(key: string): Node {
    return this.values.get(key)?.pair.key as Node;
  }

  at(key: string): string {
    return `${this.path}.${key}`;
  }

  missing(key: string, what: string): void {
    this.r.problem(this.node, this.at(key), `missing: ${what}`);
  }

  problemAt(key: string, message: string): void {
    this.r.problem(this.r.resolve(this.value(key)), this.at(key), message);
  }

  text(key: string, what: string): string | undefined {
    return this.has(key) ? this.r.text(this.value(key), this.at(key), what) : undefined;
  }

  read<T>(key: string, what: string, read: (text: string) => T): T | undefined {
    return this.has(key) ? this.r.read(this.value(key), this.at(key), what, read) : undefined;
  }

  /** `fallback` when the key is absent; undefined after a problem. */
  duration(key: string, fallback?: number): number | undefined {
    return this.has(key) ? this.r.duration(this.value(key), this.at(key)) : fallback;
  }

  bool(key: string): boolean | undefined {
    return this.has(key) ? this.r.bool(this.value(key), this.at(key)) : undefined;
  }
}

/** What every kind of check has: its name (when given), namespace and place in the file. */
interface Common {
  name: string | undefined;
  namespace: string | undefined;
  origin: SpecOrigin;
}

function readCheck(r: Reader, node: Node | null, path: string, file: string, defaults: ConfigDefaults): CheckSpec | undefined {
  if (!isMap(node)) {
    r.problem(node, path, 'expected a map with a kind (rollout, lease or queue) and its limits');
    return undefined;
  }
  const c = new CheckEntry(r, node, path);
  const kind = readKind(c);
  if (kind === undefined) return undefined;
  reportUnknownKeys(c, kind);
  const common: Common = {
    name: c.text('name', 'a name'),
    namespace: c.has('namespace') ? c.read('namespace', 'a namespace', readNamespace) : defaults.namespace,
    origin: { source: file, ...r.pos(node) },
  };
  switch (kind) {
    case 'rollout':
      return readRolloutCheck(c, common, file, defaults.manifests ?? fileManifests);
    case 'lease':
      return readLeaseCheck(c, common);
    case 'queue':
      return readQueueCheck(c, common, defaults.access);
  }
}

function readKind(c: CheckEntry): Kind | undefined {
  if (!c.has('kind')) {
    c.r.problem(c.node, c.at('kind'), 'missing: rollout, lease or queue');
    return undefined;
  }
  const text = c.text('kind', 'rollout, lease or queue');
  if (text === undefined) return undefined;
  if (!(text in KEYS)) {
    c.problemAt('kind', `"${text}" is not a kind of check${suggest(text, Object.keys(KEYS))}: rollout, lease or queue`);
    return undefined;
  }
  return text as Kind;
}

function reportUnknownKeys(c: CheckEntry, kind: Kind): void {
  const known: readonly string[] = KEYS[kind];
  for (const key of c.keys()) {
    if (known.includes(key)) continue;
    const other = (Object.keys(KEYS) as Kind[]).find((k) => (KEYS[k] as readonly string[]).includes(key));
    c.r.problem(
      c.keyNode(key),
      c.at(key),
      `unknown key for a ${kind} check${suggest(key, known)}${other ? ` ("${key}" belongs to ${other} checks)` : ''}; known: ${known.join(', ')}`,
    );
  }
}

function readNamespace(text: string): string {
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(text)) throw new Error(`"${text}" is not a namespace name`);
  return text;
}

function readRolloutCheck(c: CheckEntry, common: Common, file: string, manifests: ManifestInputs): RolloutCheckSpec | undefined {
  const trigger = readTrigger(c);
  const maxConvergeMs = c.duration('maxConverge');
  const maxHopMs = c.duration('maxHop');
  const timeoutMs = c.duration('timeout');
  if (trigger === 'apply') {
    const applied = readManifest(c, common, file, manifests);
    if (applied === undefined) return undefined;
    return rolloutSpec({ ...common, ...applied, maxConvergeMs, maxHopMs, timeoutMs });
  }
  if (!c.has('target')) c.missing('target', 'the workload to roll out, TYPE/NAME (e.g. deploy/web)');
  const target = c.read('target', 'TYPE/NAME', readTarget);
  if (target === undefined || trigger === undefined) return undefined;
  return rolloutSpec({ ...common, target, trigger, maxConvergeMs, maxHopMs, timeoutMs });
}

/** `trigger: restart` (the default), `trigger: scale` with `replicas`, or `trigger: apply` (read by readManifest). */
function readTrigger(c: CheckEntry): RolloutTrigger | 'apply' | undefined {
  const text = c.has('trigger') ? c.text('trigger', 'restart, scale or apply') : 'restart';
  if (text !== 'scale' && c.has('replicas')) c.r.problem(c.keyNode('replicas'), c.at('replicas'), 'applies to trigger: scale');
  if (text !== 'apply' && c.has('manifest')) c.r.problem(c.keyNode('manifest'), c.at('manifest'), 'applies to trigger: apply');
  if (text === 'restart') return { kind: 'restart' };
  if (text === 'apply') return 'apply';
  if (text === 'scale') {
    if (!c.has('replicas')) c.missing('replicas', 'the replica count to scale to (trigger: scale)');
    const replicas = c.read('replicas', 'a whole number', readCount);
    return replicas === undefined ? undefined : { kind: 'scale', replicas };
  }
  if (text !== undefined) c.problemAt('trigger', `"${text}" is not a trigger: restart, scale or apply`);
  return undefined;
}

/**
 * `trigger: apply`: the manifest file (a path relative to the config file), read now so that a
 * missing or malformed one is a problem of the config. The object it holds is the target, so a
 * `target:` is refused rather than compared; a `namespace:` is where an object without one goes.
 */
function readManifest(
  c: CheckEntry,
  common: Common,
  file: string,
  manifests: ManifestInputs,
): Pick<RolloutCheckSpec, 'target' | 'namespace' | 'trigger'> | undefined {
  if (c.has('target')) c.r.problem(c.keyNode('target'), c.at('target'), 'trigger: apply takes its target from the manifest: drop target');
  if (!c.has('manifest')) {
    c.missing('manifest', 'the file to apply, one object, YAML or JSON (trigger: apply)');
    return undefined;
  }
  const path = c.text('manifest', 'a file path');
  if (path === undefined) return undefined;
  const full = isAbsolute(path) ? path : join(dirname(file), path);
  try {
    // A namespace: key that disagrees with the manifest's is refused as -n is.
    const given = c.has('namespace') ? { namespaceFlag: common.namespace, namespaceName: 'namespace' } : {};
    return readApply(full, common.namespace, { ...manifests, ...given });
  } catch (err) {
    c.problemAt('manifest', (err as Error).message);
    return undefined;
  }
}

function readLeaseCheck(c: CheckEntry, common: Common): LeaseCheckSpec | undefined {
  if (!c.has('lease')) c.missing('lease', 'the Lease, NAMESPACE/NAME (e.g. kube-system/kube-controller-manager)');
  const lease = c.read('lease', 'NAMESPACE/NAME', readLease);
  const maxRenewAgeMs = c.duration('maxRenewAge');
  const maxTransitions = c.read('maxTransitions', 'a whole number', readCount);
  const windowMs = c.duration('window', DEFAULT_WINDOW_MS);
  if (!c.has('maxRenewAge') && !c.has('maxTransitions')) c.missing('maxRenewAge', 'a limit: maxRenewAge and/or maxTransitions');
  if (lease === undefined || windowMs === undefined) return undefined;
  if (lease.namespace && c.has('namespace') && common.namespace !== lease.namespace) {
    c.problemAt('namespace', `the lease is given as ${lease.namespace}/${lease.name}: drop namespace, or the namespace in lease`);
  }
  return leaseSpec({ ...common, lease, maxRenewAgeMs, maxTransitions, windowMs });
}

function readQueueCheck(c: CheckEntry, common: Common, access: MetricsAccess): QueueCheckSpec | undefined {
  if (!c.has('metrics')) c.missing('metrics', 'where to scrape: apiserver, pod/NS/NAME[:PORT], svc/NS/NAME[:PORT] or https://HOST:PORT/metrics');
  const metrics = readMetricsSources(c);
  const maxDepth = c.has('maxDepth') ? c.r.queueLimits(c.value('maxDepth'), c.at('maxDepth'), readCount, 'deployment=10') : [];
  const maxRetryRate = c.has('maxRetryRate') ? c.r.queueLimits(c.value('maxRetryRate'), c.at('maxRetryRate'), readRate, 'replicaset=1/s') : [];
  if (!c.has('maxDepth') && !c.has('maxRetryRate')) c.missing('maxDepth', 'a limit: maxDepth and/or maxRetryRate');
  const windowMs = c.duration('window', DEFAULT_WINDOW_MS);
  const sampleIntervalMs = c.duration('sampleInterval');
  const insecure = c.bool('insecureSkipTlsVerify');
  const kubeconfigCredentials = c.bool('kubeconfigCredentials');
  const scrapeTimeoutMs = c.duration('scrapeTimeout');
  if (metrics.length === 0 || windowMs === undefined) return undefined;
  return queueSpec({
    name: common.name,
    metrics,
    // The check's own keys win over the --metrics-* flags; the token is only ever a flag.
    access: {
      insecureSkipTlsVerify: insecure ?? access.insecureSkipTlsVerify,
      kubeconfigCredentials: kubeconfigCredentials ?? access.kubeconfigCredentials,
      token: access.token,
      timeoutMs: scrapeTimeoutMs ?? access.timeoutMs,
    },
    maxDepth,
    maxRetryRate,
    windowMs,
    sampleIntervalMs,
    origin: common.origin,
  });
}

/** `metrics:` as one source or a list, each checked as --metrics checks it, with its position. */
function readMetricsSources(c: CheckEntry): string[] {
  if (!c.has('metrics')) return [];
  const metrics = c.r.strings(c.value('metrics'), c.at('metrics'), 'metrics source');
  const node = c.r.resolve(c.value('metrics'));
  metrics.forEach((m, i) => {
    try {
      parseMetricsSpec(m);
    } catch (err) {
      const item = isSeq(node) ? c.r.resolve(node.items[i]) : node;
      c.r.problem(item, isSeq(node) ? `${c.at('metrics')}[${i}]` : c.at('metrics'), (err as Error).message.replace(/^--metrics /, ''));
    }
  });
  return metrics;
}
