/**
 * Checks from the command line: `--restart deploy/web --max-converge 60s`, `--lease
 * kube-system/kube-controller-manager --max-renew-age 20s`, `--metrics … --max-depth deployment=10`.
 * Every flag is read before anything is sent; a limit without its subject, or a subject without a
 * limit that makes it a check, is a UsageError that says which flag is missing.
 */
import { readFileSync } from 'node:fs';
import { isFolder, objectsOfText, readObjectFiles, requireApplicable, type SourcedObject } from '../cli/object-files.js';
import { controllerNameFlag, listItems, watchSelectorFlag } from '../cli/options.js';
import { UsageError } from '../errors.js';
import { parseMetricsSpec } from '../metrics/index.js';
import { manifestNamespace, parseManifest } from '../trace/index.js';
import { parseTarget } from '../util/target.js';
import { readCount, readDuration, readQueueLimit, readRate } from './limits.js';
import { controllerSpec } from './controller.js';
import { DEFAULT_WINDOW_MS, leaseSpec, queueSpec, rolloutSpec, setSpec } from './spec-builders.js';
import type { CheckSpec, MetricsAccess, QueueLimit, RolloutTrigger } from './types.js';

export interface CheckFlagValues {
  restart?: string[];
  scale?: string[];
  /** --apply: each -f FILE is a manifest to apply server-side, one rollout check each. */
  apply?: boolean;
  filename?: string[];
  /** -R: the subfolders of a -f folder too. */
  recursive?: boolean;
  /** --watch: no write; the next change someone else makes to the objects of -f, or of -l, is checked as one set. */
  watch?: boolean;
  /** -l: with --watch, the objects these labels select. */
  selector?: string;
  /** --kinds: with -l, the kinds to select among (TYPE names, comma-separated). */
  kinds?: string;
  maxConverge?: string;
  maxHop?: string;
  timeout?: string;
  lease?: string[];
  maxRenewAge?: string;
  maxTransitions?: string;
  window?: string;
  metrics?: string[];
  maxDepth?: string[];
  maxRetryRate?: string[];
  sampleInterval?: string;
  /** Controller checks: components as `top` shows them (kube-controller-manager, NAMESPACE/LEASE). */
  controller?: string[];
}

function flag<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${name}: ${(err as Error).message}`);
  }
}

/** `deploy/web` as written (trimmed); `demo/deploy/web` is not accepted, -n is. */
export function readTarget(text: string): string {
  const { type, name } = parseTarget(text);
  return `${type}/${name}`;
}

/** `deploy/web=5`. */
export function readScale(text: string): { target: string; replicas: number } {
  const eq = text.lastIndexOf('=');
  if (eq === -1) throw new Error(`"${text}" is not TYPE/NAME=REPLICAS (e.g. deploy/web=5)`);
  return { target: readTarget(text.slice(0, eq)), replicas: readCount(text.slice(eq + 1)) };
}

/** How the manifests of apply checks are read before anything is sent. */
export interface ManifestInputs {
  /** A file's text; "-" is stdin, which the command reads once. */
  readFile: (path: string) => string;
  /** -n as given (undefined without it): a manifest in another namespace is refused, as kubectl does. */
  namespaceFlag: string | undefined;
  /** What gave namespaceFlag, for the refusal: --namespace unless told. */
  namespaceName?: string;
}

export const fileManifests: ManifestInputs = { readFile: (path) => readFileSync(path, 'utf8'), namespaceFlag: undefined };

/**
 * An apply check's trigger, from its manifest file: the target and namespace are the object's own
 * (a namespaced object without one goes to `namespace`, as with kubectl apply). Errors start with
 * the file's name.
 */
export function readApply(
  file: string,
  namespace: string | undefined,
  inputs: ManifestInputs,
): { target: string; namespace: string | undefined; trigger: RolloutTrigger } {
  const source = file === '-' ? 'stdin' : file;
  let text: string;
  try {
    text = inputs.readFile(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new UsageError(`${source}: ${e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'a folder, not a file' : e.message}`);
  }
  const manifest = parseManifest(text, source);
  return {
    target: `${manifest.kind!.toLowerCase()}/${manifest.metadata.name!}`,
    namespace: manifestNamespace(manifest, source, namespace, inputs.namespaceFlag, inputs.namespaceName),
    trigger: { kind: 'apply', file, manifest },
  };
}

/**
 * The objects of a -f that is a set: a folder (its subfolders with `recursive`), or a file of
 * several objects. Undefined for a file of one object: a rollout check of its own (readApply).
 */
function applyObjects(file: string, recursive: boolean, inputs: ManifestInputs): SourcedObject[] | undefined {
  if (isFolder(file)) return requireApplicable(readObjectFiles([file], { recursive }), [file]);
  let text: string;
  try {
    text = inputs.readFile(file);
  } catch {
    return undefined; // readApply says what is wrong with it
  }
  const objects = objectsOfText(text, file === '-' ? 'stdin' : file);
  return objects.length > 1 ? requireApplicable(objects, [file]) : undefined;
}

/** --watch's objects: those of -f, or those -l selects (among --kinds); undefined without --watch. */
function watchedSet(opts: CheckFlagValues, files: string[]): { files: string[]; select?: { labelSelector: string; kinds: string[] } } | undefined {
  const kinds = opts.kinds !== undefined ? listItems(opts.kinds) : [];
  if (opts.selector !== undefined && !opts.watch) throw new UsageError('-l picks the objects of --watch; add --watch to check the next change to them');
  if (opts.kinds !== undefined && opts.selector === undefined) throw new UsageError('--kinds names the kinds -l selects among; it goes with --watch -l');
  if (!opts.watch) return undefined;
  if (opts.apply) throw new UsageError('choose one of --apply (write and check) and --watch (check the next change someone else makes)');
  if (opts.selector === undefined && files.length === 0)
    throw new UsageError('--watch needs the objects: -f FILE|DIR, or -l SELECTOR', {
      hint: 'e.g. --watch -l app.kubernetes.io/instance=shop --max-converge 2m',
    });
  const selector = opts.selector !== undefined ? watchSelectorFlag(opts.selector, files) : undefined;
  if (kinds.some((k) => k.includes('/'))) throw new UsageError('--kinds takes TYPE names (e.g. deploy,svc,rollouts), not TYPE/NAME');
  return selector !== undefined ? { files, select: { labelSelector: selector, kinds } } : { files };
}

/** Every object of --watch's -f paths, folders read as kubectl reads them. */
function watchedObjects(files: string[], recursive: boolean, inputs: ManifestInputs): SourcedObject[] {
  const objects = files.flatMap((f) =>
    flag(`-f ${f}`, () => (isFolder(f) ? readObjectFiles([f], { recursive }) : objectsOfText(inputs.readFile(f), f === '-' ? 'stdin' : f))),
  );
  return flag('-f', () => requireApplicable(objects, files));
}

/** NAMESPACE/NAME, or NAME in the -n namespace. */
export function readLease(text: string): { namespace: string | undefined; name: string } {
  const parts = text.trim().split('/');
  const dns = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
  if (parts.length === 1 && dns.test(parts[0]!)) return { namespace: undefined, name: parts[0]! };
  if (parts.length === 2 && dns.test(parts[0]!) && dns.test(parts[1]!)) return { namespace: parts[0], name: parts[1]! };
  throw new Error(`"${text}" is not a Lease: write NAMESPACE/NAME (e.g. kube-system/kube-controller-manager), or NAME with -n`);
}

/** The limits of the flags, each read and checked (undefined, or [], where not given). */
interface FlagLimits {
  maxDepth: QueueLimit[];
  maxRetryRate: QueueLimit[];
  maxConvergeMs: number | undefined;
  maxHopMs: number | undefined;
  timeoutMs: number | undefined;
  maxRenewAgeMs: number | undefined;
  maxTransitions: number | undefined;
  windowMs: number | undefined;
  sampleIntervalMs: number | undefined;
}

function readLimits(opts: CheckFlagValues): FlagLimits {
  const given = <T>(name: string, text: string | undefined, read: (text: string) => T): T | undefined =>
    text === undefined ? undefined : flag(name, () => read(text));
  return {
    maxDepth: (opts.maxDepth ?? []).map((t) => flag('--max-depth', () => readQueueLimit(t, readCount))),
    maxRetryRate: (opts.maxRetryRate ?? []).map((t) => flag('--max-retry-rate', () => readQueueLimit(t, readRate))),
    maxConvergeMs: given('--max-converge', opts.maxConverge, readDuration),
    maxHopMs: given('--max-hop', opts.maxHop, readDuration),
    timeoutMs: given('--timeout', opts.timeout, readDuration),
    maxRenewAgeMs: given('--max-renew-age', opts.maxRenewAge, readDuration),
    maxTransitions: given('--max-transitions', opts.maxTransitions, readCount),
    windowMs: given('--window', opts.window, readDuration),
    sampleIntervalMs: given('--sample-interval', opts.sampleInterval, readDuration),
  };
}

/** A limit given without the check it limits is refused, naming the flag that would make it one. */
function requireSubjects(opts: CheckFlagValues, limits: FlagLimits, rollouts: boolean): void {
  const leases = opts.lease ?? [];
  const queues = (opts.metrics ?? []).length > 0 || (opts.controller ?? []).length > 0;
  if (!rollouts) {
    for (const [set, name] of [
      [limits.maxConvergeMs, '--max-converge'],
      [limits.maxHopMs, '--max-hop'],
      [limits.timeoutMs, '--timeout'],
    ] as const) {
      if (set !== undefined) throw new UsageError(`${name} applies to a rollout check: give --restart TYPE/NAME, --scale TYPE/NAME=N or --apply -f FILE`);
    }
  }
  if (leases.length === 0) {
    for (const [set, name] of [
      [limits.maxRenewAgeMs, '--max-renew-age'],
      [limits.maxTransitions, '--max-transitions'],
    ] as const) {
      if (set !== undefined) throw new UsageError(`${name} applies to a lease check: give --lease NAMESPACE/NAME`);
    }
  }
  if (!queues) {
    for (const [set, name] of [
      [limits.maxDepth.length || undefined, '--max-depth'],
      [limits.maxRetryRate.length || undefined, '--max-retry-rate'],
      [limits.sampleIntervalMs, '--sample-interval'],
    ] as const) {
      if (set !== undefined)
        throw new UsageError(`${name} applies to a queue check: give --metrics SOURCE`, { hint: 'or to a controller check: --controller NAME' });
    }
  }
  if (limits.windowMs !== undefined && leases.length === 0 && !queues) {
    throw new UsageError('--window applies to lease and queue checks: give --lease or --metrics', { hint: 'and to controller checks: --controller NAME' });
  }
}

/** A set's objects, each checked against -n and named by its file and document. */
function setObjects(objects: SourcedObject[], namespace: string | undefined, manifests: ManifestInputs): { obj: SourcedObject['obj']; source: string }[] {
  for (const o of objects) manifestNamespace(o.obj, `${o.file}: document ${o.document}`, namespace, manifests.namespaceFlag, manifests.namespaceName);
  return objects.map((o) => ({ obj: o.obj, source: `${o.file}: document ${o.document}` }));
}

/**
 * The rollout and set checks: --watch's set, then one rollout check per --restart, --scale and
 * --apply of a file of one object, then one set check per --apply of a folder or of a file of
 * several objects. `triggers` counts the rollout checks.
 */
function rolloutAndSetSpecs(
  opts: CheckFlagValues,
  watched: ReturnType<typeof watchedSet>,
  namespace: string | undefined,
  limits: FlagLimits,
  manifests: ManifestInputs,
): { specs: CheckSpec[]; triggers: number } {
  const origin = { source: 'flags' };
  const { maxConvergeMs, maxHopMs, timeoutMs } = limits;
  const specs: CheckSpec[] = [];
  if (watched) {
    if (maxHopMs !== undefined) throw new UsageError("--max-hop applies to one object's rollout; --watch checks a set of objects");
    const objects = watched.files.length ? watchedObjects(watched.files, opts.recursive === true, manifests) : [];
    specs.push(
      setSpec({
        files: watched.files,
        objects: setObjects(objects, namespace, manifests),
        namespace,
        maxConvergeMs,
        timeoutMs,
        watch: true,
        select: watched.select,
        origin,
      }),
    );
  }

  // A folder, or a file of several objects, is one set check; a file of one object, one rollout check.
  const sets: { file: string; objects: SourcedObject[] }[] = [];
  const single: string[] = [];
  for (const f of opts.apply ? (opts.filename ?? []) : []) {
    const objects = flag(`-f ${f}`, () => applyObjects(f, opts.recursive === true, manifests));
    if (objects) sets.push({ file: f, objects });
    else single.push(f);
  }
  const triggers: { target: string; namespace: string | undefined; trigger: RolloutTrigger }[] = [
    ...(opts.restart ?? []).map((t) => ({ target: flag('--restart', () => readTarget(t)), namespace, trigger: { kind: 'restart' } as RolloutTrigger })),
    ...(opts.scale ?? []).map((t) => {
      const s = flag('--scale', () => readScale(t));
      return { target: s.target, namespace, trigger: { kind: 'scale', replicas: s.replicas } as RolloutTrigger };
    }),
    ...single.map((f) => {
      try {
        return readApply(f, namespace, manifests);
      } catch (err) {
        const e = err as UsageError;
        throw new UsageError(`-f ${e.message}`, { hint: e.hint });
      }
    }),
  ];
  for (const t of triggers) {
    specs.push(rolloutSpec({ target: t.target, namespace: t.namespace, trigger: t.trigger, maxConvergeMs, maxHopMs, timeoutMs, origin }));
  }
  for (const s of sets) {
    if (maxHopMs !== undefined) throw new UsageError(`--max-hop applies to one object's rollout; -f ${s.file} holds ${s.objects.length} objects`);
    specs.push(setSpec({ files: [s.file], objects: setObjects(s.objects, namespace, manifests), namespace, maxConvergeMs, timeoutMs, origin }));
  }
  return { specs, triggers: triggers.length };
}

/** The lease checks: one per --lease, each with the limits given (one at least). */
function leaseSpecs(opts: CheckFlagValues, namespace: string | undefined, limits: FlagLimits): CheckSpec[] {
  const leases = opts.lease ?? [];
  const { maxRenewAgeMs, maxTransitions, windowMs } = limits;
  if (leases.length > 0 && maxRenewAgeMs === undefined && maxTransitions === undefined) {
    throw new UsageError('a lease check needs a limit: --max-renew-age DURATION and/or --max-transitions N', {
      hint: 'e.g. --lease kube-system/kube-controller-manager --max-renew-age 20s --max-transitions 2 --window 5m',
    });
  }
  return leases.map((text) =>
    leaseSpec({ lease: flag('--lease', () => readLease(text)), namespace, maxRenewAgeMs, maxTransitions, windowMs, origin: { source: 'flags' } }),
  );
}

/** The checks the flags ask for; [] when they ask for none (a --config may). */
export function specsFromFlags(
  opts: CheckFlagValues,
  namespace: string | undefined,
  access: MetricsAccess,
  manifests: ManifestInputs = fileManifests,
): CheckSpec[] {
  const origin = { source: 'flags' };
  const metrics = opts.metrics ?? [];
  const controllers = opts.controller ?? [];
  const limits = readLimits(opts);
  const { maxDepth, maxRetryRate, windowMs, sampleIntervalMs } = limits;

  const files = opts.filename ?? [];
  const watched = watchedSet(opts, files);
  if (opts.apply && files.length === 0) throw new UsageError('--apply needs the manifest: -f FILE (repeatable), or -f - for stdin');
  if (!opts.apply && !opts.watch && files.length > 0)
    throw new UsageError('-f gives the manifest of --apply; add --apply to apply it, or --watch to check the next change to its objects');
  if (files.filter((f) => f === '-').length > 1) throw new UsageError('-f -: stdin can be read once');
  requireSubjects(opts, limits, (opts.restart ?? []).length + (opts.scale ?? []).length + files.length > 0 || watched !== undefined);

  const rollouts = rolloutAndSetSpecs(opts, watched, namespace, limits, manifests);
  const specs: CheckSpec[] = [...rollouts.specs, ...leaseSpecs(opts, namespace, limits)];

  // With --controller, --metrics adds sources to what is found for the controllers (as for `top`).
  for (const text of controllers) {
    specs.push(
      controllerSpec({ controller: controllerNameFlag(text), metrics, access, maxDepth, maxRetryRate, windowMs: windowMs ?? DEFAULT_WINDOW_MS, origin }),
    );
  }
  if (metrics.length > 0 && controllers.length === 0) {
    for (const m of metrics) parseMetricsSpec(m);
    // Without queue limits beside a rollout check, --metrics is where its operator's queue is read (RunContext.operatorMetrics).
    if (maxDepth.length === 0 && maxRetryRate.length === 0 && rollouts.triggers > 0) return specs;
    if (maxDepth.length === 0 && maxRetryRate.length === 0) {
      throw new UsageError('a queue check needs a limit: --max-depth [QUEUE=]N and/or --max-retry-rate [QUEUE=]RATE', {
        hint: 'e.g. --metrics https://127.0.0.1:10257/metrics --max-depth deployment=10 --max-retry-rate 1/s --window 60s',
      });
    }
    specs.push(queueSpec({ metrics, access, maxDepth, maxRetryRate, windowMs, sampleIntervalMs, origin }));
  }
  return specs;
}
