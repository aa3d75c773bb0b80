import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import { KubeClient } from './client.js';
import { ListDecodeError, ListStreamDecoder } from './list-decoder.js';
import { ResourceListerWatcher } from './lister-watcher.js';
import type { KubeObject, ResourceInfo } from './types.js';
import { rng } from '../../tools/testing/rng.js';
import { loopbackKubeConfig } from '../../tools/testing/http-server.js';

/** Strings that stress the scanner: quotes, backslash runs, brackets, multi-byte characters. */
const nasty = ['"', '\\', '\\\\', '\\"', '{', '}', '[', ']', '"items":[', 'é', '日本', '😀', ',', '\n', '\u0000', 'plain'];

function randomString(r: () => number): string {
  let s = '';
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) s += nasty[Math.floor(r() * nasty.length)];
  return s;
}

function randomValue(r: () => number, depth: number): unknown {
  const pick = r();
  if (depth > 3 || pick < 0.3) return randomString(r);
  if (pick < 0.4) return Math.floor(r() * 1e6) - 5e5;
  if (pick < 0.45) return r() < 0.5;
  if (pick < 0.5) return null;
  if (pick < 0.7) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 4); i > 0; i--) o[randomString(r) + i] = randomValue(r, depth + 1);
  return o;
}

function randomList(r: () => number, count: number): Record<string, unknown> {
  const items = Array.from({ length: count }, (_, i) => ({
    metadata: { name: `pod-${i}`, namespace: 'ns', annotations: { [randomString(r)]: randomString(r), items: '["not", "the items"]' } },
    spec: randomValue(r, 0),
    status: { conditions: [{ type: 'Ready', message: randomString(r) }] },
  }));
  return { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '12345', continue: 'tok"en' }, items };
}

/** Feeds `bytes` to a decoder in chunks whose sizes come from `sizes`. */
function decode(bytes: Buffer, sizes: () => number): { items: unknown[]; envelope: Record<string, unknown> } {
  const items: unknown[] = [];
  const d = new ListStreamDecoder((item) => items.push(item));
  for (let i = 0; i < bytes.length; ) {
    const n = Math.max(1, sizes());
    d.write(bytes.subarray(i, i + n));
    i += n;
  }
  return { items, envelope: d.end() };
}

describe('ListStreamDecoder', () => {
  it('decodes every item and the envelope, whatever the chunk boundaries', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed);
      const list = randomList(r, 1 + Math.floor(r() * 20));
      for (const space of [undefined, 2]) {
        const bytes = Buffer.from(JSON.stringify(list, null, space));
        const maxChunk = [1, 2, 3, 7, 64, 4096][seed % 6]!;
        const { items, envelope } = decode(bytes, () => 1 + Math.floor(r() * maxChunk));
        expect(items).toEqual(list.items);
        expect(envelope).toEqual({ ...list, items: [] });
      }
    }
  });

  it('splits at every byte of a small list', () => {
    const list = { kind: 'List', metadata: {}, items: [{ a: 'x\\"y' }, { b: ['é', { c: '\\\\' }] }, {}] };
    const bytes = Buffer.from(JSON.stringify(list));
    for (let cut = 1; cut < bytes.length; cut++) {
      const items: unknown[] = [];
      const d = new ListStreamDecoder((item) => items.push(item));
      d.write(bytes.subarray(0, cut));
      d.write(bytes.subarray(cut));
      expect(d.end()).toEqual({ ...list, items: [] });
      expect(items).toEqual(list.items);
    }
  });

  it('hands out each item as soon as its closing brace is read', () => {
    const seen: unknown[] = [];
    const d = new ListStreamDecoder((item) => seen.push(item));
    d.write(Buffer.from('{"kind":"List","items":[{"a":1},{"b"'));
    expect(seen).toEqual([{ a: 1 }]);
    d.write(Buffer.from(':2}'));
    expect(seen).toEqual([{ a: 1 }, { b: 2 }]);
    d.write(Buffer.from(']}'));
    expect(d.count).toBe(2);
    expect(d.end()).toEqual({ kind: 'List', items: [] });
  });

  it('leaves items that are null or absent to the envelope, and ignores arrays under other keys', () => {
    for (const doc of [
      '{"kind":"List","items":null}',
      '{"kind":"List"}',
      '{"kind":"List","items":[]}',
      '{"metadata":{"items":[{"x":1}]},"other":[{"y":2}],"items":[]}',
    ]) {
      const { items, envelope } = decode(Buffer.from(doc), () => 3);
      expect(items).toEqual([]);
      const parsed = JSON.parse(doc) as Record<string, unknown>;
      expect(envelope).toEqual(parsed);
    }
  });

  it('refuses a truncated list, a bad item, a non-object item, HTML and a top-level array', () => {
    const cases: [string, RegExp][] = [
      ['{"kind":"List","items":[{"a":1},{"b":', /ended before its JSON was complete/],
      ['{"kind":"List","items":[{"a":1}', /ended before its JSON was complete/],
      ['{"kind":"List","items":[{"a":tru}]}', /list item 0 is not JSON/],
      ['{"kind":"List","items":[1,2]}', /not an object/],
      ['<html><body>proxy error</body></html>', /not JSON/],
      ['[{"a":1}]', /not a JSON object/],
    ];
    for (const [doc, message] of cases) {
      expect(() => decode(Buffer.from(doc), () => 5), doc).toThrow(message);
      expect(() => decode(Buffer.from(doc), () => 5), doc).toThrow(ListDecodeError);
    }
  });
});

describe('ResourceListerWatcher.list over HTTP', () => {
  let server: Server;
  let respond: (path: string) => { status: number; body: string | Buffer; cut?: boolean };
  let lw: ResourceListerWatcher;
  const pods: ResourceInfo = {
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
    verbs: ['list', 'watch'],
    shortNames: [],
    singularName: 'pod',
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const { status, body, cut } = respond(req.url ?? '');
      res.writeHead(status, { 'content-type': 'application/json' });
      if (cut) {
        res.write(body);
        setTimeout(() => res.socket?.destroy(), 10);
        return;
      }
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const kc = loopbackKubeConfig(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    lw = new ResourceListerWatcher(new KubeClient(kc), pods, { namespace: 'ns' });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('gives items their kind and apiVersion, applies the transform to each, and keeps the list metadata', async () => {
    const list = randomList(rng(7), 300);
    respond = () => ({ status: 200, body: JSON.stringify(list) });
    const transformed: string[] = [];
    const result = await lw.list({ resourceVersion: '0', limit: 500 }, undefined, {
      transform: (o: KubeObject) => {
        transformed.push(`${o.kind}/${o.apiVersion}/${o.metadata?.name}`);
        delete o.status;
        return o;
      },
    });
    expect(result.resourceVersion).toBe('12345');
    expect(result.continue).toBe('tok"en');
    expect(result.items).toHaveLength(300);
    expect(transformed[299]).toBe('Pod/v1/pod-299');
    const want = (list.items as KubeObject[]).map(({ status: _s, ...rest }) => ({ ...rest, kind: 'Pod', apiVersion: 'v1' }));
    expect(result.items).toEqual(want);
  });

  it('turns a non-2xx Status into an ApiError naming the request, and a cut or non-JSON body into clear errors', async () => {
    respond = () => ({
      status: 403,
      body: JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message: 'pods is forbidden' }),
    });
    const forbidden = await lw.list({}).catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(ApiError);
    expect((forbidden as ApiError).code).toBe(403);
    expect((forbidden as ApiError).request).toMatchObject({ verb: 'list', resource: 'pods', namespace: 'ns' });

    respond = () => ({ status: 200, body: '<html>not the API server</html>' });
    await expect(lw.list({})).rejects.toThrow(/not JSON/);

    respond = () => ({ status: 200, body: '{"kind":"PodList","items":[{"metadata":{"name":"a"}},{"metadata":', cut: true });
    const cut = await lw.list({}).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(ApiError);
    expect(String(cut)).toMatch(/ended before its JSON was complete|cannot reach the API server/);
  });
});
