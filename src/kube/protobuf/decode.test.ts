import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import type { WatchEvent } from '../types.js';
import { decodeObject, goDuration, ProtobufDecodeError } from './decode.js';
import { hasProtobufForm } from './schema.js';
import { ProtobufListStreamDecoder, ProtobufWatchDecoder } from './stream.js';

// Messages are written with protobufjs's Writer, field by field, as Go's generated marshalling
// lays them out (every non-pointer scalar and struct written, even when zero).
type W = protobuf.Writer;
const writer = (): W => protobuf.Writer.create();
const str = (w: W, num: number, s: string): W => w.uint32((num << 3) | 2).string(s);
const int = (w: W, num: number, n: number): W => w.uint32(num << 3).int64(n);
const bool = (w: W, num: number, b: boolean): W => w.uint32(num << 3).bool(b);
const msg = (w: W, num: number, inner: W): W => w.uint32((num << 3) | 2).bytes(inner.finish());
const entry = (w: W, num: number, key: string, value: (e: W) => W): W => msg(w, num, value(str(writer(), 1, key)));

/** "k8s\0" + runtime.Unknown{typeMeta{apiVersion, kind}, raw}. */
function object(apiVersion: string, kind: string, raw: W): Buffer {
  const typeMeta = str(str(writer(), 1, apiVersion), 2, kind);
  const unknown = msg(writer(), 1, typeMeta).uint32(18).bytes(raw.finish()).finish();
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
}

/** ObjectMeta as Go writes it: the non-pointer fields always, zero or not. */
function objectMeta(name: string, extra: (w: W) => W = (w) => w): W {
  let w = str(writer(), 1, name);
  w = str(w, 2, '');
  w = str(w, 3, 'demo');
  w = str(w, 4, '');
  w = str(w, 5, 'uid-1');
  w = str(w, 6, '42');
  w = int(w, 7, 0);
  w = msg(w, 8, int(writer(), 1, 1_764_630_000));
  return extra(w);
}

describe('protobuf decoding into the API server JSON form', () => {
  it('applies Go JSON rules: omitempty zero scalars left out, nil lists null unless omitempty, zero times', () => {
    // A ContainerStatus: name, state (struct, omitempty), ready (bool, not omitempty), restartCount (int).
    const status = bool(str(writer(), 1, 'app'), 4, false);
    int(status, 5, 0);
    str(status, 6, 'nginx');
    str(status, 7, '');
    str(status, 8, ''); // containerID: omitempty
    const podStatus = msg(str(writer(), 1, 'Running'), 8, status);
    // PodSpec with no containers (a nil, non-omitempty list) and a zero-time-free status.
    const spec = str(writer(), 11, '');
    const pod = msg(msg(msg(writer(), 1, objectMeta('web-1')), 2, spec), 3, podStatus);
    const obj = decodeObject(object('v1', 'Pod', pod));
    expect(obj.kind).toBe('Pod');
    expect(obj.apiVersion).toBe('v1');
    expect(obj.metadata).toEqual({ name: 'web-1', namespace: 'demo', uid: 'uid-1', resourceVersion: '42', creationTimestamp: '2025-12-01T23:00:00Z' });
    const s = obj.status as { containerStatuses: Record<string, unknown>[]; phase: string };
    expect(s.phase).toBe('Running');
    expect(s.containerStatuses).toEqual([{ name: 'app', ready: false, restartCount: 0, image: 'nginx', imageID: '', state: {}, lastState: {} }]);
    expect((obj.spec as Record<string, unknown>).containers).toBeNull();
    expect(Object.hasOwn(obj.spec as object, 'nodeName')).toBe(false);
  });

  it('leaves out a zero creationTimestamp (omitzero) and writes null for other zero times', () => {
    const meta = str(writer(), 1, 'x');
    msg(meta, 8, writer()); // zero time: an empty message
    // A PodCondition: type, status, lastTransitionTime (time, omitempty but a struct: null when zero).
    const cond = msg(str(str(writer(), 1, 'Ready'), 2, 'True'), 4, writer());
    const pod = msg(msg(writer(), 1, meta), 3, msg(writer(), 2, cond));
    const obj = decodeObject(object('v1', 'Pod', pod));
    expect(Object.hasOwn(obj.metadata as object, 'creationTimestamp')).toBe(false);
    expect((obj.status as { conditions: unknown[] }).conditions).toEqual([{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: null }]);
  });

  it('reads negative numbers, int-or-strings, quantities, maps and inline structs', () => {
    // Deployment: spec.replicas (pointer), spec.strategy.rollingUpdate.maxSurge (int-or-string).
    const rollingUpdate = msg(msg(writer(), 1, int(writer(), 1, 1).uint32(26).string('25%')), 2, int(int(writer(), 1, 0), 2, 3));
    const strategy = msg(str(writer(), 1, 'RollingUpdate'), 2, rollingUpdate);
    const spec = msg(int(writer(), 1, 0), 4, strategy);
    int(spec, 5, -1); // minReadySeconds: a negative int32 goes as a 10-byte varint
    const dep = msg(msg(writer(), 1, objectMeta('d')), 2, spec);
    const obj = decodeObject(object('apps/v1', 'Deployment', dep));
    const s = obj.spec as Record<string, unknown>;
    expect(s.replicas).toBe(0); // a pointer: kept although zero
    expect(s.minReadySeconds).toBe(-1);
    expect(s.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 3 } });

    // A container's resources (map of quantities) and a volume's inline VolumeSource.
    const resources = entry(writer(), 1, 'cpu', (e) => msg(e, 2, str(writer(), 1, '500m')));
    const container = msg(str(str(writer(), 1, 'app'), 2, 'nginx'), 8, resources);
    const volume = msg(str(writer(), 1, 'data'), 2, msg(writer(), 2, writer()));
    const podSpec = msg(msg(writer(), 1, volume), 2, container);
    const pod = decodeObject(object('v1', 'Pod', msg(msg(writer(), 1, objectMeta('p')), 2, podSpec)));
    const ps = pod.spec as { volumes: unknown[]; containers: { resources: unknown }[] };
    expect(ps.volumes).toEqual([{ name: 'data', emptyDir: {} }]);
    expect(ps.containers[0]!.resources).toEqual({ limits: { cpu: '500m' } });
  });

  it('leaves managedFields out unread when asked, and decodes them (JSON in FieldsV1) otherwise', () => {
    const fields = msg(writer(), 7, str(writer(), 1, '{"f:data":{}}'));
    const meta = objectMeta('c', (w) => msg(w, 17, str(str(fields, 1, 'kubectl'), 2, 'Update')));
    const cm = msg(writer(), 1, meta);
    entry(cm, 2, 'k', (e) => str(e, 2, 'v'));
    entry(cm, 2, '__proto__', (e) => str(e, 2, 'a valid ConfigMap key'));
    const body = object('v1', 'ConfigMap', cm);
    const full = decodeObject(body);
    expect((full.metadata as { managedFields: unknown }).managedFields).toEqual([{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:data': {} } }]);
    expect(full.data).toEqual(JSON.parse('{"k":"v","__proto__":"a valid ConfigMap key"}'));
    expect(Object.keys(full.data as object)).toEqual(['k', '__proto__']);
    const skipped = decodeObject(body, 0, body.length, { skipManagedFields: true });
    expect(Object.hasOwn(skipped.metadata as object, 'managedFields')).toBe(false);
    expect(skipped.data).toEqual(full.data);
    const slim = decodeObject(body, 0, body.length, { skipManagedFieldSets: true });
    expect((slim.metadata as { managedFields: unknown }).managedFields).toEqual([{ manager: 'kubectl', operation: 'Update' }]);
  });

  it('formats durations as Go does', () => {
    const cases: [number, string][] = [
      [0, '0s'],
      [1, '1ns'],
      [1_500, '1.5µs'],
      [1_500_000, '1.5ms'],
      [1_000_000_000, '1s'],
      [1_500_000_000, '1.5s'],
      [60_000_000_000, '1m0s'],
      [3_600_000_000_000, '1h0m0s'],
      [7_384_005_000_000, '2h3m4.005s'],
      [-90_000_000_000, '-1m30s'],
    ];
    for (const [nanos, text] of cases) expect(goDuration(nanos)).toBe(text);
  });

  it('refuses a message cut short and one without the "k8s\\0" prefix', () => {
    const body = object('v1', 'ConfigMap', msg(writer(), 1, objectMeta('c')));
    expect(() => decodeObject(body.subarray(0, body.length - 3))).toThrow(ProtobufDecodeError);
    expect(() => decodeObject(Buffer.from('{"kind":"Pod"}'))).toThrow(/k8s/);
  });

  it('knows the built-in kinds and not CRDs', () => {
    expect(hasProtobufForm('v1', 'Pod')).toBe(true);
    expect(hasProtobufForm('apps/v1', 'ReplicaSet')).toBe(true);
    expect(hasProtobufForm('coordination.k8s.io/v1', 'Lease')).toBe(true);
    expect(hasProtobufForm('example.com/v1', 'Widget')).toBe(false);
  });
});

describe('spec and status left for their first read (lazySpecStatus)', () => {
  const LAZY = { lazySpecStatus: true };
  /** A Deployment with a pod template (whose own spec must come out decoded with its parent's). */
  function deployment(): Buffer {
    const container = str(str(writer(), 1, 'app'), 2, 'nginx:1.27');
    const template = msg(msg(writer(), 1, objectMeta('tmpl')), 2, msg(writer(), 2, container));
    const spec = msg(int(writer(), 1, 3), 3, template);
    const status = int(int(writer(), 1, 7), 2, 3);
    return object('apps/v1', 'Deployment', msg(msg(msg(writer(), 1, objectMeta('web')), 2, spec), 3, status));
  }
  const descriptor = (o: object, name: string): PropertyDescriptor => Object.getOwnPropertyDescriptor(o, name)!;

  it('reads a frozen object as the eager decoder gives it, decoding on each read', () => {
    const body = deployment();
    const frozen = Object.freeze(decodeObject(body, 0, body.length, LAZY));
    expect(frozen.status).toEqual({ observedGeneration: 7, replicas: 3 });
    expect(typeof descriptor(frozen, 'status').get).toBe('function');
    expect(frozen).toEqual(decodeObject(body));
    expect(() => {
      (frozen as Record<string, unknown>).spec = {};
    }).toThrow(TypeError);
  });

  it('decodes metadata at once and spec and status when read, into what the eager decoder gives', () => {
    const body = deployment();
    const eager = decodeObject(body);
    const lazy = decodeObject(body, 0, body.length, LAZY);
    expect(descriptor(lazy, 'metadata').value).toEqual(eager.metadata);
    expect(typeof descriptor(lazy, 'spec').get).toBe('function');
    expect(typeof descriptor(lazy, 'status').get).toBe('function');
    expect(Object.keys(lazy)).toEqual(Object.keys(eager));
    expect(lazy.status).toEqual({ observedGeneration: 7, replicas: 3 });
    // Read once, the field is a plain data property and its bytes are gone.
    expect(descriptor(lazy, 'status')).toMatchObject({ writable: true, enumerable: true, configurable: true });
    expect(descriptor(lazy, 'status').value).toBe(lazy.status);
    expect(typeof descriptor(lazy, 'spec').get).toBe('function');
    const spec = lazy.spec as { template: Record<string, unknown> };
    expect(typeof descriptor(spec.template, 'spec').get).toBe('undefined');
    expect(spec).toEqual(eager.spec);
    expect(Object.getOwnPropertySymbols(lazy).map((k) => (lazy as Record<symbol, unknown>)[k])).toEqual([undefined, undefined]);
    expect(lazy).toEqual(eager);
  });

  it('serialises, spreads, clones and compares as the eager object does, without being read first', () => {
    const body = deployment();
    const eager = decodeObject(body);
    const fresh = (): Record<string, unknown> => decodeObject(body, 0, body.length, LAZY);
    expect(JSON.stringify(fresh())).toBe(JSON.stringify(eager));
    expect({ ...fresh() }).toEqual({ ...eager });
    expect(structuredClone(fresh())).toEqual(structuredClone(eager));
    expect(Object.entries(fresh())).toEqual(Object.entries(eager));
    expect(fresh()).toStrictEqual(eager);
  });

  it('takes an assignment or a delete as a plain field would, before any read', () => {
    const body = deployment();
    const set = decodeObject(body, 0, body.length, LAZY);
    set.status = { replicas: 1 };
    expect(set.status).toEqual({ replicas: 1 });
    expect(descriptor(set, 'status').value).toEqual({ replicas: 1 });
    const gone = decodeObject(body, 0, body.length, LAZY);
    delete gone.spec;
    expect('spec' in gone).toBe(false);
    expect(Object.keys(gone)).toEqual(['kind', 'apiVersion', 'metadata', 'status']);
  });

  it('gives a spec or status missing from the wire as the eager decoder does, and leaves other kinds alone', () => {
    const bare = object('v1', 'Pod', msg(writer(), 1, objectMeta('p')));
    const lazy = decodeObject(bare, 0, bare.length, LAZY);
    expect(typeof descriptor(lazy, 'spec').get).toBe('undefined');
    expect(lazy).toEqual(decodeObject(bare));
    // A ConfigMap has no spec or status; an Event's message fields are not spec or status.
    const cm = msg(writer(), 1, objectMeta('c'));
    entry(cm, 2, 'k', (e) => str(e, 2, 'v'));
    const cmBody = object('v1', 'ConfigMap', cm);
    expect(descriptor(decodeObject(cmBody, 0, cmBody.length, LAZY), 'data').value).toEqual({ k: 'v' });
    const ev = msg(msg(writer(), 1, objectMeta('e')), 2, str(str(writer(), 1, 'Pod'), 3, 'web-1'));
    const evBody = object('v1', 'Event', ev);
    expect(descriptor(decodeObject(evBody, 0, evBody.length, LAZY), 'involvedObject').value).toMatchObject({ kind: 'Pod', name: 'web-1' });
  });

  describe('the waiting bytes, kept in pieces that objects share', () => {
    /** A Pod of a template: its own volume name and node, the rest alike (PodSpec, Container and VolumeMount as numbered in k8s.io/api). */
    function pod(name: string, volume: string, node: string): Buffer {
      const env = (n: string, v: string): W => str(str(writer(), 1, n), 2, v);
      const mount = str(str(writer(), 1, volume), 3, '/var/run/secrets/kubernetes.io/serviceaccount');
      let container = str(str(writer(), 1, 'web'), 2, 'registry.k8s.io/e2e-test-images/agnhost:2.53');
      for (let i = 0; i < 4; i++) container = msg(container, 7, env(`SETTING_${i}`, 'a value long enough to be worth sharing'));
      container = msg(container, 9, mount);
      const spec = str(msg(str(writer(), 3, 'Always'), 2, container), 10, node);
      const status = str(str(writer(), 1, 'Pending'), 9, 'Burstable');
      return object('v1', 'Pod', msg(msg(msg(writer(), 1, objectMeta(name)), 2, spec), 3, status));
    }
    const waiting = (o: object): unknown[] => Object.getOwnPropertySymbols(o).map((k) => (o as Record<symbol, unknown>)[k]);

    it('holds the parts two Pods share once, and decodes each into what the eager decoder gives', () => {
      const bodies = [pod('web-1', 'kube-api-access-9s868', 'node-0'), pod('web-2', 'kube-api-access-x7k2q', 'node-1')];
      const [a, b] = bodies.map((body) => decodeObject(body, 0, body.length, LAZY));
      const [specA, statusA] = waiting(a!);
      const [specB, statusB] = waiting(b!);
      expect(Array.isArray(specA) && Array.isArray(specB)).toBe(true);
      const piecesA = specA as string[];
      const piecesB = specB as string[];
      expect(piecesA.length).toBe(piecesB.length);
      // The same strings, not equal copies, wherever the bytes agree; the volume name and the node differ.
      const shared = piecesA.filter((p, i) => p === piecesB[i]);
      const own = piecesA.filter((p, i) => p !== piecesB[i]);
      expect(shared.join('').length).toBeGreaterThan(own.join('').length * 2);
      expect(own.some((p) => p.includes('9s868'))).toBe(true);
      expect(own.some((p) => p.includes('node-0'))).toBe(true);
      expect(shared.some((p) => p.includes('9s868') || p.includes('node-0'))).toBe(false);
      // A short status is one piece, the one string for both.
      expect(typeof statusA).toBe('string');
      expect(statusA).toBe(statusB);
      bodies.forEach((body, i) => {
        expect([a, b][i]).toStrictEqual(decodeObject(body));
      });
      expect(a!.spec).toMatchObject({ nodeName: 'node-0', containers: [{ volumeMounts: [{ name: 'kube-api-access-9s868' }] }] });
    });

    it('keeps bytes that do not parse as the message whole, and fails on their first read as the eager decoder does', () => {
      // A spec whose containers field ends in the middle of a nested field.
      const broken = writer()
        .uint32((2 << 3) | 2)
        .bytes(Buffer.concat([str(writer(), 2, 'x'.repeat(80)).finish(), Buffer.from([0x12, 0x40])]));
      const body = object('v1', 'Pod', msg(msg(writer(), 1, objectMeta('p')), 2, broken));
      const lazy = decodeObject(body, 0, body.length, LAZY);
      expect(typeof waiting(lazy)[0]).toBe('string');
      expect(() => decodeObject(body)).toThrow(ProtobufDecodeError);
      expect(() => lazy.spec).toThrow(ProtobufDecodeError);
    });
  });

  it('gives a List decoded in any chunks the same items', () => {
    const deploymentRaw = (name: string): W => {
      const container = str(str(writer(), 1, 'app'), 2, 'nginx');
      const template = msg(msg(writer(), 1, objectMeta('t')), 2, msg(writer(), 2, container));
      return msg(msg(msg(writer(), 1, objectMeta(name)), 2, msg(int(writer(), 1, 2), 3, template)), 3, int(writer(), 2, 2));
    };
    const list = msg(writer(), 1, str(writer(), 2, '9'));
    for (const n of ['a', 'b', 'c']) msg(list, 2, deploymentRaw(n));
    const body = object('apps/v1', 'DeploymentList', list);
    const eager: Record<string, unknown>[] = [];
    const e = new ProtobufListStreamDecoder((o) => eager.push(o as Record<string, unknown>));
    e.write(body);
    e.end();
    for (const size of [1, 13, 4096]) {
      const items: Record<string, unknown>[] = [];
      const d = new ProtobufListStreamDecoder((o) => items.push(o as Record<string, unknown>), LAZY);
      for (let i = 0; i < body.length; i += size) d.write(body.subarray(i, i + size));
      d.end();
      expect(items.every((o) => typeof descriptor(o, 'spec').get === 'function')).toBe(true);
      expect(items).toEqual(eager);
    }
  });
});

describe('protobuf Lists and watch streams, decoded while they arrive', () => {
  const pods = Array.from({ length: 5 }, (_, i) => msg(writer(), 1, objectMeta(`web-${i}`)));
  function podList(): Buffer {
    const listMeta = str(str(writer(), 1, ''), 2, '77');
    str(listMeta, 3, 'next-page');
    const list = msg(writer(), 1, listMeta);
    for (const p of pods) msg(list, 2, p);
    return object('v1', 'PodList', list);
  }

  it('gives the same items and List metadata whatever the chunks', () => {
    const body = podList();
    const whole: unknown[] = [];
    const d = new ProtobufListStreamDecoder((o) => whole.push(o));
    d.write(body);
    expect(d.end()).toEqual({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '77', continue: 'next-page' }, items: [] });
    expect(whole.map((o) => (o as { metadata: { name: string } }).metadata.name)).toEqual(['web-0', 'web-1', 'web-2', 'web-3', 'web-4']);
    for (const size of [1, 2, 3, 7, 64]) {
      const items: unknown[] = [];
      const s = new ProtobufListStreamDecoder((o) => items.push(o));
      for (let i = 0; i < body.length; i += size) s.write(body.subarray(i, i + size));
      s.end();
      expect(items).toEqual(whole);
    }
  });

  it('refuses a List that ends before its last item', () => {
    const body = podList();
    const d = new ProtobufListStreamDecoder(() => {});
    d.write(body.subarray(0, body.length - 10));
    expect(() => d.end()).toThrow(/ended before its last item/);
  });

  it('cuts watch frames at their lengths and decodes each event, Status errors included', () => {
    const frame = (type: string, raw: Buffer): Buffer => {
      const ev = str(writer(), 1, type).uint32(18).bytes(writer().uint32(10).bytes(raw).finish()).finish();
      const len = Buffer.alloc(4);
      len.writeUInt32BE(ev.length);
      return Buffer.concat([len, ev]);
    };
    const status = msg(writer(), 1, writer());
    str(str(str(status, 2, 'Failure'), 3, 'too old resource version: 1 (77)'), 4, 'Expired');
    int(status, 6, 410);
    const stream = Buffer.concat([
      frame('ADDED', object('v1', 'Pod', pods[0]!)),
      frame('MODIFIED', object('v1', 'Pod', pods[1]!)),
      frame('ERROR', object('v1', 'Status', status)),
    ]);
    for (const size of [1, 5, 1000]) {
      const events: WatchEvent[] = [];
      const d = new ProtobufWatchDecoder();
      for (let i = 0; i < stream.length; i += size) d.write(stream.subarray(i, i + size), (e) => events.push(e));
      d.end();
      expect(events.map((e) => [e.type, e.object.kind, e.object.metadata?.name])).toEqual([
        ['ADDED', 'Pod', 'web-0'],
        ['MODIFIED', 'Pod', 'web-1'],
        ['ERROR', 'Status', undefined],
      ]);
      expect(events[2]!.object).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 });
    }
    const cut = new ProtobufWatchDecoder();
    cut.write(stream.subarray(0, 20), () => {});
    expect(() => cut.end()).toThrow(/inside a frame/);
  });
});
