import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { describeSpec } from './describe.js';
import { readLease, readScale, readTarget, specsFromFlags, type ManifestInputs } from './flags.js';
import { formatValue, readCount, readDuration, readQueueLimit, readRate } from './limits.js';
import { defaultSampleInterval } from './spec-builders.js';
import type { MetricsAccess } from './types.js';

const access: MetricsAccess = { insecureSkipTlsVerify: true, kubeconfigCredentials: false, token: undefined, timeoutMs: 5_000 };

describe('limits as users write them', () => {
  it('reads durations, counts, rates and per-queue limits', () => {
    expect(readDuration('1m30s')).toBe(90_000);
    expect(() => readDuration('0s')).toThrow('"0s" must be longer than 0');
    expect(() => readDuration('fast')).toThrow('"fast" is not a duration');
    expect(readCount('3')).toBe(3);
    expect(() => readCount('-1')).toThrow('not a whole number');
    expect(readRate('1/s')).toBe(1);
    expect(readRate('30/m')).toBe(0.5);
    expect(readRate('36/h')).toBe(0.01);
    expect(readRate('2')).toBe(2);
    expect(readRate('0.5 / min')).toBeCloseTo(1 / 120);
    expect(() => readRate('1/d')).toThrow('"1/d" is not a rate');
    expect(readQueueLimit('deployment=10', readCount)).toEqual({ queue: 'deployment', limit: 10, text: 'deployment=10' });
    expect(readQueueLimit('10', readCount)).toEqual({ queue: '*', limit: 10, text: '10' });
    expect(readQueueLimit('*=1/s', readRate)).toEqual({ queue: '*', limit: 1, text: '*=1/s' });
    expect(() => readQueueLimit('a b=1', readCount)).toThrow('"a b" is not a workqueue name');
    expect(readTarget('deploy/web')).toBe('deploy/web');
    expect(() => readTarget('demo/deploy/web')).toThrow('is not TYPE/NAME');
    expect(readScale('sts/db=3')).toEqual({ target: 'sts/db', replicas: 3 });
    expect(readLease('kube-system/kcm')).toEqual({ namespace: 'kube-system', name: 'kcm' });
    expect(readLease('kcm')).toEqual({ namespace: undefined, name: 'kcm' });
    expect(() => readLease('a/b/c')).toThrow('is not a Lease');
  });

  it('formats values by unit', () => {
    expect(formatValue(null, 'ms')).toBe('-');
    expect(formatValue(1500, 'ms')).toBe('1.50s');
    expect(formatValue(7, 'count')).toBe('7');
    expect(formatValue(0.0523, 'per-second')).toBe('0.052/s');
    expect(formatValue(2.345, 'per-second')).toBe('2.35/s');
    expect(formatValue(0, 'per-second')).toBe('0/s');
  });

  it('spaces queue samples a sixth of the window apart, between 1 s and 10 s', () => {
    expect(defaultSampleInterval(3_000)).toBe(1_000);
    expect(defaultSampleInterval(30_000)).toBe(5_000);
    expect(defaultSampleInterval(600_000)).toBe(10_000);
  });
});

describe('checks from flags', () => {
  it("reads --metrics without queue limits beside a rollout check as its operator's metrics: no queue check, and no limit asked for", () => {
    const specs = specsFromFlags({ restart: ['rollout/web'], metrics: ['http://127.0.0.1:8090/metrics'] }, 'demo', access);
    expect(specs.map((s) => s.kind)).toEqual(['rollout']);
  });

  it('makes one rollout check per --restart/--scale, one lease check per --lease and one queue check over all --metrics', () => {
    const specs = specsFromFlags(
      {
        restart: ['deploy/web'],
        scale: ['sts/db=2'],
        maxConverge: '60s',
        maxHop: '20s',
        lease: ['kube-system/kcm', 'other'],
        maxRenewAge: '20s',
        window: '5m',
        metrics: ['apiserver', 'pod/kube-system/kcm:10257'],
        maxDepth: ['deployment=10'],
        maxRetryRate: ['1/s'],
      },
      'demo',
      access,
    );
    expect(specs.map((s) => s.name)).toEqual([
      'rollout deploy/web in demo',
      'rollout sts/db in demo',
      'lease kube-system/kcm',
      'lease demo/other',
      'queues of apiserver, pod/kube-system/kcm:10257',
    ]);
    expect(specs[1]).toMatchObject({
      trigger: { kind: 'scale', replicas: 2 },
      maxConvergeMs: 60_000,
      maxHopMs: 20_000,
      timeoutMs: 60_000,
      origin: { source: 'flags' },
    });
    expect(specs[3]).toMatchObject({ kind: 'lease', namespace: 'demo', lease: 'other', maxRenewAgeMs: 20_000, maxTransitions: undefined, windowMs: 300_000 });
    expect(specs[4]).toMatchObject({ kind: 'queue', access, windowMs: 300_000, sampleIntervalMs: 10_000, maxRetryRate: [{ queue: '*', limit: 1 }] });
  });

  it('takes --timeout over --max-converge for the deadline, 5m without either', () => {
    expect(specsFromFlags({ restart: ['deploy/web'], maxConverge: '1m', timeout: '3m' }, undefined, access)[0]).toMatchObject({
      timeoutMs: 180_000,
      name: 'rollout deploy/web',
    });
    expect(specsFromFlags({ restart: ['deploy/web'] }, undefined, access)[0]).toMatchObject({ timeoutMs: 300_000, maxConvergeMs: undefined });
  });

  it('refuses a limit without its subject and a subject without a limit, naming the flags', () => {
    const refused = (opts: Parameters<typeof specsFromFlags>[0]): string => {
      try {
        specsFromFlags(opts, undefined, access);
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refused({ maxHop: '1s' })).toBe('--max-hop applies to a rollout check: give --restart TYPE/NAME, --scale TYPE/NAME=N or --apply -f FILE');
    expect(refused({ maxTransitions: '1' })).toBe('--max-transitions applies to a lease check: give --lease NAMESPACE/NAME');
    expect(refused({ maxDepth: ['3'] })).toBe('--max-depth applies to a queue check: give --metrics SOURCE');
    expect(refused({ window: '1m' })).toBe('--window applies to lease and queue checks: give --lease or --metrics');
    expect(refused({ lease: ['a/b'] })).toBe('a lease check needs a limit: --max-renew-age DURATION and/or --max-transitions N');
    expect(refused({ metrics: ['apiserver'] })).toBe('a queue check needs a limit: --max-depth [QUEUE=]N and/or --max-retry-rate [QUEUE=]RATE');
    expect(refused({ metrics: ['gopher://x'], maxDepth: ['1'] })).toMatch(/^--metrics "gopher:\/\/x": gopher:\/\/ is not supported/);
    expect(refused({ restart: ['web'] })).toBe('--restart: "web" is not TYPE/NAME (e.g. deploy/web, sts/db)');
    expect(refused({ scale: ['deploy/web'] })).toBe('--scale: "deploy/web" is not TYPE/NAME=REPLICAS (e.g. deploy/web=5)');
    expect(refused({ restart: ['deploy/web'], maxConverge: 'soon' })).toBe('--max-converge: "soon" is not a duration (e.g. 500ms, 30s, 2m, 1h)');
  });

  describe('--apply -f FILE', () => {
    const files: Record<string, string> = {
      'web.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n',
      'db.json': '{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db","namespace":"data"}}',
      'two.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
      'noname.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {}\n',
      '-': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: piped}\n',
    };
    const readFile = (path: string): string => {
      if (path in files) return files[path]!;
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
    };
    const manifests = (namespaceFlag?: string): ManifestInputs => ({ readFile, namespaceFlag });
    const refused = (opts: Parameters<typeof specsFromFlags>[0], namespaceFlag?: string): string => {
      try {
        specsFromFlags(opts, namespaceFlag, access, manifests(namespaceFlag));
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as Error).message;
      }
      throw new Error('not refused');
    };

    it('makes one rollout check per manifest, named after the object the manifest holds, in its own namespace', () => {
      const specs = specsFromFlags({ apply: true, filename: ['web.yaml', 'db.json', '-'], maxConverge: '2m' }, 'demo', access, manifests());
      expect(specs.map((s) => [s.name, s.kind === 'rollout' && s.target, s.kind === 'rollout' && s.namespace])).toEqual([
        ['rollout deployment/web in demo', 'deployment/web', 'demo'],
        ['rollout statefulset/db in data', 'statefulset/db', 'data'],
        ['rollout deployment/piped in demo', 'deployment/piped', 'demo'],
      ]);
      expect(specs[0]).toMatchObject({
        trigger: { kind: 'apply', file: 'web.yaml', manifest: { kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2 } } },
        maxConvergeMs: 120_000,
        timeoutMs: 120_000,
      });
      expect(describeSpec(specs[0]!)).toBe('apply web.yaml; converge ≤ 2m');
      expect(describeSpec(specs[2]!)).toBe('apply stdin; converge ≤ 2m');
      // The manifest's own namespace wins over the context's, and agrees with a -n that names it.
      expect(specsFromFlags({ apply: true, filename: ['db.json'] }, 'data', access, manifests('data'))[0]).toMatchObject({ namespace: 'data' });
    });

    it('makes one set check of a file of several objects, each held to the limit', () => {
      const [spec] = specsFromFlags({ apply: true, filename: ['two.yaml'], maxConverge: '90s' }, 'demo', access, manifests());
      expect(spec).toMatchObject({ kind: 'set', name: 'apply two.yaml in demo', files: ['two.yaml'], maxConvergeMs: 90_000, timeoutMs: 90_000 });
      expect(spec!.kind === 'set' && spec!.objects.map((o) => [o.obj.metadata.name, o.source])).toEqual([
        ['a', 'two.yaml: document 1'],
        ['b', 'two.yaml: document 2'],
      ]);
      expect(describeSpec(spec!)).toBe('apply 2 objects from two.yaml; each ready ≤ 1m30s');
    });

    it('refuses what kubectl apply would, before anything is sent', () => {
      expect(refused({ apply: true })).toBe('--apply needs the manifest: -f FILE (repeatable), or -f - for stdin');
      expect(refused({ filename: ['web.yaml'] })).toBe(
        '-f gives the manifest of --apply; add --apply to apply it, or --watch to check the next change to its objects',
      );
      expect(refused({ apply: true, filename: ['-', '-'] })).toBe('-f -: stdin can be read once');
      expect(refused({ apply: true, filename: ['missing.yaml'] })).toBe('-f missing.yaml: no such file');
      expect(refused({ apply: true, filename: ['noname.yaml'] })).toBe('noname.yaml: document 2: the object has no metadata.name');
      expect(refused({ apply: true, filename: ['two.yaml'], maxHop: '5s' })).toBe("--max-hop applies to one object's rollout; -f two.yaml holds 2 objects");
      expect(refused({ apply: true, filename: ['db.json'] }, 'demo')).toBe('-f db.json: the object\'s namespace "data" does not match --namespace "demo"');
      expect(refused({ apply: true, filename: ['web.yaml'], maxConverge: 'soon' })).toBe('--max-converge: "soon" is not a duration (e.g. 500ms, 30s, 2m, 1h)');
    });

    describe('--watch', () => {
      it('makes one set check of the objects -l selects, among the kinds named or those of kubectl get all', () => {
        const [spec] = specsFromFlags({ watch: true, selector: 'app=shop', kinds: 'deploy, svc', maxConverge: '2m' }, 'shop', access);
        expect(spec).toMatchObject({
          kind: 'set',
          name: 'watch -l app=shop in shop',
          watch: true,
          select: { labelSelector: 'app=shop', kinds: ['deploy', 'svc'] },
        });
        expect(describeSpec(spec!)).toBe('watch the objects -l app=shop selects among deploy, svc; each ready ≤ 2m');
        const [all] = specsFromFlags({ watch: true, selector: 'app=shop' }, 'shop', access);
        expect(describeSpec(all!)).toBe('watch the objects -l app=shop selects among the kinds of kubectl get all; each ready within 5m');
      });

      it('makes one set check of every object of the -f files, written by nobody but watched', () => {
        const [spec] = specsFromFlags({ watch: true, filename: ['two.yaml', 'web.yaml'] }, 'demo', access, manifests());
        expect(spec).toMatchObject({ kind: 'set', name: 'watch two.yaml, web.yaml in demo', watch: true });
        expect(spec!.kind === 'set' && spec!.objects.map((o) => o.obj.metadata.name)).toEqual(['a', 'b', 'web']);
      });

      it('refuses what does not make a watched set, before anything is sent', () => {
        expect(refused({ watch: true })).toBe('--watch needs the objects: -f FILE|DIR, or -l SELECTOR');
        expect(refused({ selector: 'app=shop' })).toBe('-l picks the objects of --watch; add --watch to check the next change to them');
        expect(refused({ watch: true, selector: 'app=shop', filename: ['web.yaml'] })).toBe('give the objects to watch either with -f or with -l, not both');
        expect(refused({ watch: true, apply: true, filename: ['web.yaml'] })).toBe(
          'choose one of --apply (write and check) and --watch (check the next change someone else makes)',
        );
        expect(refused({ watch: true, selector: 'app=shop', kinds: 'deploy/web' })).toBe('--kinds takes TYPE names (e.g. deploy,svc,rollouts), not TYPE/NAME');
        expect(refused({ kinds: 'deploy' })).toBe('--kinds names the kinds -l selects among; it goes with --watch -l');
        expect(refused({ watch: true, selector: 'app=shop', maxHop: '5s' })).toBe("--max-hop applies to one object's rollout; --watch checks a set of objects");
      });
    });
  });

  it('asks for nothing when no check flag is given', () => {
    expect(specsFromFlags({}, 'demo', access)).toEqual([]);
  });
});
