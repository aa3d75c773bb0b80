/**
 * Checks from a YAML file (`--config health.yaml`): several checks of any kind, run together.
 *
 *   checks:
 *     - kind: rollout
 *       target: deploy/web
 *       namespace: demo
 *       maxConverge: 60s
 *       maxHop: 20s
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
 * The keys are the command's flags in camelCase. Every problem in the file is reported at once,
 * each as FILE:LINE:COLUMN: checks[1].maxConverge: what is wrong and what would be right, from
 * the `yaml` package's node ranges; nothing is sent to the cluster when there is one.
 */
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node, type Pair } from 'yaml';
import { UsageError } from '../errors.js';
import { parseMetricsSpec } from '../metrics/index.js';
import { closest } from '../util/suggest.js';
import { DEFAULT_WINDOW_MS, defaultSampleInterval, leaseName, queueName, readLease, readScale, readTarget, rolloutSpec } from './flags.js';
import { readCount, readDuration, readQueueLimit, readRate } from './limits.js';
import type { CheckSpec, MetricsAccess, QueueLimit, RolloutTrigger, SpecOrigin } from './types.js';

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
}

const KEYS = {
  rollout: ['kind', 'name', 'target', 'namespace', 'trigger', 'replicas', 'maxConverge', 'maxHop', 'timeout'],
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
    const range = node && 'range' in node && node.range ? node.range : node && 'key' in node && (node.key as Node | null)?.range ? (node.key as Node).range : undefined;
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
      n.items.forEach((item, i) => one(item, `${path}[${i}]`));
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

function formatProblems(file: string, problems: readonly ConfigProblem[]): string {
  const lines = problems.map((p) => `  ${file}:${p.line}:${p.column}: ${p.path ? `${p.path}: ` : ''}${p.message}`);
  return `${file} is not a valid check config (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}`;
}

/** Reads every check in the file; UsageError listing every problem, with line and column, otherwise. */
export function specsFromConfig(text: string, file: string, defaults: ConfigDefaults): CheckSpec[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e) => {
      const p = e.linePos?.[0] ?? (e.pos ? lines.linePos(e.pos[0]) : { line: 1, col: 1 });
      return { line: p.line, column: p.col, path: '', message: `YAML: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}` };
    });
    throw new UsageError(formatProblems(file, problems));
  }
  const r = new Reader(doc, lines);
  const specs: CheckSpec[] = [];
  const root = r.resolve(doc.contents);
  if (!isMap(root)) {
    r.problem(root, '', 'expected a map with a "checks:" list');
    throw new UsageError(formatProblems(file, r.problems), { hint: 'see docs/ci.md for the format' });
  }
  let checksNode: unknown;
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key === 'checks') checksNode = pair.value;
    else r.problem(pair.key as Node, key, `unknown key${suggest(key, ['checks'])}: the file holds one key, "checks"`);
  }
  const checks = r.resolve(checksNode);
  if (checksNode === undefined) r.problem(root, 'checks', 'missing: a list of checks, each with a kind (rollout, lease or queue)');
  else if (!isSeq(checks) || checks.items.length === 0) r.problem(checks, 'checks', 'expected a non-empty list of checks');
  else checks.items.forEach((item, i) => {
    const spec = readCheck(r, r.resolve(item), `checks[${i}]`, file, defaults);
    if (spec) specs.push(spec);
  });

  const names = new Map<string, string>();
  for (const [i, s] of specs.entries()) {
    const before = names.get(s.name);
    if (before !== undefined) r.problems.push({ line: s.origin.line ?? 1, column: s.origin.column ?? 1, path: `checks[${i}].name`, message: `"${s.name}" is also the name of ${before}: give one of them a different name` });
    names.set(s.name, `checks[${i}]`);
  }
  if (r.problems.length > 0) {
    r.problems.sort((a, b) => a.line - b.line || a.column - b.column);
    throw new UsageError(formatProblems(file, r.problems), { hint: 'see docs/ci.md for the format' });
  }
  return specs;
}

function suggest(key: string, known: readonly string[]): string {
  const near = closest(key, [...known], 1);
  return near.length ? ` (did you mean "${near[0]}"?)` : '';
}

function readCheck(r: Reader, node: Node | null, path: string, file: string, defaults: ConfigDefaults): CheckSpec | undefined {
  if (!isMap(node)) {
    r.problem(node, path, 'expected a map with a kind (rollout, lease or queue) and its limits');
    return undefined;
  }
  const values = new Map<string, { pair: Pair; value: unknown }>();
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    values.set(key, { pair: pair as Pair, value: pair.value });
  }
  const origin: SpecOrigin = { source: file, ...r.pos(node) };
  const kindEntry = values.get('kind');
  if (!kindEntry) {
    r.problem(node, `${path}.kind`, 'missing: rollout, lease or queue');
    return undefined;
  }
  const kindText = r.text(kindEntry.value, `${path}.kind`, 'rollout, lease or queue');
  if (kindText === undefined) return undefined;
  if (!(kindText in KEYS)) {
    r.problem(r.resolve(kindEntry.value), `${path}.kind`, `"${kindText}" is not a kind of check${suggest(kindText, Object.keys(KEYS))}: rollout, lease or queue`);
    return undefined;
  }
  const kind = kindText as Kind;
  const known: readonly string[] = KEYS[kind];
  for (const [key, { pair }] of values) {
    if (!known.includes(key)) {
      const other = (Object.keys(KEYS) as Kind[]).find((k) => (KEYS[k] as readonly string[]).includes(key));
      r.problem(pair.key as Node, `${path}.${key}`, `unknown key for a ${kind} check${suggest(key, known)}${other ? ` ("${key}" belongs to ${other} checks)` : ''}; known: ${known.join(', ')}`);
    }
  }
  const get = (key: string): unknown => values.get(key)?.value;
  const has = (key: string): boolean => values.has(key);
  const at = (key: string): string => `${path}.${key}`;
  const name = has('name') ? r.text(get('name'), at('name'), 'a name') : undefined;
  const namespace = has('namespace') ? r.read(get('namespace'), at('namespace'), 'a namespace', (t) => {
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(t)) throw new Error(`"${t}" is not a namespace name`);
    return t;
  }) : defaults.namespace;
  const missing = (key: string, what: string): void => r.problem(node, at(key), `missing: ${what}`);

  switch (kind) {
    case 'rollout': {
      if (!has('target')) missing('target', 'the workload to roll out, TYPE/NAME (e.g. deploy/web)');
      const target = has('target') ? r.read(get('target'), at('target'), 'TYPE/NAME', readTarget) : undefined;
      const triggerText = has('trigger') ? r.text(get('trigger'), at('trigger'), 'restart or scale') : 'restart';
      let trigger: RolloutTrigger | undefined;
      if (triggerText === 'restart') {
        trigger = { kind: 'restart' };
        if (has('replicas')) r.problem(values.get('replicas')!.pair.key as Node, at('replicas'), 'applies to trigger: scale');
      } else if (triggerText === 'scale') {
        if (!has('replicas')) missing('replicas', 'the replica count to scale to (trigger: scale)');
        const replicas = has('replicas') ? r.read(get('replicas'), at('replicas'), 'a whole number', readCount) : undefined;
        if (replicas !== undefined) trigger = { kind: 'scale', replicas };
      } else if (triggerText !== undefined) {
        r.problem(r.resolve(get('trigger')), at('trigger'), `"${triggerText}" is not a trigger: restart or scale`);
      }
      const maxConvergeMs = has('maxConverge') ? r.duration(get('maxConverge'), at('maxConverge')) : undefined;
      const maxHopMs = has('maxHop') ? r.duration(get('maxHop'), at('maxHop')) : undefined;
      const timeoutMs = has('timeout') ? r.duration(get('timeout'), at('timeout')) : undefined;
      if (target === undefined || trigger === undefined) return undefined;
      return rolloutSpec({ name, target, namespace, trigger, maxConvergeMs, maxHopMs, timeoutMs, origin });
    }
    case 'lease': {
      if (!has('lease')) missing('lease', 'the Lease, NAMESPACE/NAME (e.g. kube-system/kube-controller-manager)');
      const lease = has('lease') ? r.read(get('lease'), at('lease'), 'NAMESPACE/NAME', readLease) : undefined;
      const maxRenewAgeMs = has('maxRenewAge') ? r.duration(get('maxRenewAge'), at('maxRenewAge')) : undefined;
      const maxTransitions = has('maxTransitions') ? r.read(get('maxTransitions'), at('maxTransitions'), 'a whole number', readCount) : undefined;
      const windowMs = has('window') ? r.duration(get('window'), at('window')) : DEFAULT_WINDOW_MS;
      if (!has('maxRenewAge') && !has('maxTransitions')) missing('maxRenewAge', 'a limit: maxRenewAge and/or maxTransitions');
      if (lease === undefined || windowMs === undefined) return undefined;
      if (lease.namespace && has('namespace') && namespace !== lease.namespace) {
        r.problem(r.resolve(get('namespace')), at('namespace'), `the lease is given as ${lease.namespace}/${lease.name}: drop namespace, or the namespace in lease`);
      }
      const ns = lease.namespace ?? namespace;
      return { kind, name: name ?? leaseName(ns, lease.name), namespace: ns, lease: lease.name, maxRenewAgeMs, maxTransitions, windowMs, origin };
    }
    case 'queue': {
      if (!has('metrics')) missing('metrics', 'where to scrape: apiserver, pod/NS/NAME[:PORT], svc/NS/NAME[:PORT] or https://HOST:PORT/metrics');
      const metrics = has('metrics') ? r.strings(get('metrics'), at('metrics'), 'metrics source') : [];
      const metricsNode = r.resolve(get('metrics'));
      metrics.forEach((m, i) => {
        try {
          parseMetricsSpec(m);
        } catch (err) {
          const item = isSeq(metricsNode) ? r.resolve(metricsNode.items[i]) : metricsNode;
          r.problem(item, isSeq(metricsNode) ? `${at('metrics')}[${i}]` : at('metrics'), (err as Error).message.replace(/^--metrics /, ''));
        }
      });
      const maxDepth = has('maxDepth') ? r.queueLimits(get('maxDepth'), at('maxDepth'), readCount, 'deployment=10') : [];
      const maxRetryRate = has('maxRetryRate') ? r.queueLimits(get('maxRetryRate'), at('maxRetryRate'), readRate, 'replicaset=1/s') : [];
      if (!has('maxDepth') && !has('maxRetryRate')) missing('maxDepth', 'a limit: maxDepth and/or maxRetryRate');
      const windowMs = has('window') ? r.duration(get('window'), at('window')) : DEFAULT_WINDOW_MS;
      const sampleIntervalMs = has('sampleInterval') ? r.duration(get('sampleInterval'), at('sampleInterval')) : undefined;
      const insecure = has('insecureSkipTlsVerify') ? r.bool(get('insecureSkipTlsVerify'), at('insecureSkipTlsVerify')) : undefined;
      const kubeconfigCredentials = has('kubeconfigCredentials') ? r.bool(get('kubeconfigCredentials'), at('kubeconfigCredentials')) : undefined;
      const scrapeTimeoutMs = has('scrapeTimeout') ? r.duration(get('scrapeTimeout'), at('scrapeTimeout')) : undefined;
      if (metrics.length === 0 || windowMs === undefined) return undefined;
      return {
        kind,
        name: name ?? queueName(metrics),
        metrics,
        access: {
          insecureSkipTlsVerify: insecure ?? defaults.access.insecureSkipTlsVerify,
          kubeconfigCredentials: kubeconfigCredentials ?? defaults.access.kubeconfigCredentials,
          token: defaults.access.token,
          timeoutMs: scrapeTimeoutMs ?? defaults.access.timeoutMs,
        },
        maxDepth,
        maxRetryRate,
        windowMs,
        sampleIntervalMs: sampleIntervalMs ?? defaultSampleInterval(windowMs),
        origin,
      };
    }
  }
}
