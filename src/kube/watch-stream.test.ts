import { get, type IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { startLoopbackServer } from '../../tools/testing/http-server.js';
import { rng } from '../../tools/testing/rng.js';
import { ConnectionStalledError } from './http.js';
import { ProtobufWatchDecoder } from './protobuf/stream.js';
import type { WatchEvent } from './types.js';
import { JsonLinesDecoder, MAX_WATCH_EVENT_BYTES, WatchStream } from './watch-stream.js';

/** GETs `base` and resolves with the open response. */
function open(base: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(base, resolve).on('error', reject));
}

/** A response body that delivers `bytes` in the given chunk sizes, then ends. */
function body(bytes: Buffer, sizes: () => number): IncomingMessage {
  const s = new PassThrough();
  setImmediate(() => {
    for (let i = 0; i < bytes.length; ) {
      const n = Math.max(1, sizes());
      s.write(bytes.subarray(i, i + n));
      i += n;
    }
    s.end();
  });
  return s as unknown as IncomingMessage;
}

async function collect(w: WatchStream): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const ev of w) out.push(ev);
  return out;
}

function events(n: number): WatchEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    type: i % 3 === 0 ? 'ADDED' : 'MODIFIED',
    object: { metadata: { name: `pod-${i}`, annotations: { note: 'é日本😀 "quoted" \\ back' } }, spec: { n: i } },
  }));
}

describe('WatchStream', () => {
  it('yields every line as an event whatever the chunk boundaries, multi-byte characters included', async () => {
    const want = events(40);
    const bytes = Buffer.from(`${want.map((e) => JSON.stringify(e)).join('\n')}\n`);
    for (const seed of [1, 2, 3, 4, 5]) {
      const r = rng(seed);
      const max = [1, 3, 17, 256, 65536][seed - 1]!;
      expect(
        await collect(
          new WatchStream(
            body(bytes, () => 1 + Math.floor(r() * max)),
            'test',
          ),
        ),
      ).toEqual(want);
    }
  });

  it('splits at every byte of a short stream; blank lines are skipped and a last line without a newline counts', async () => {
    const want = events(2);
    const bytes = Buffer.from(`${JSON.stringify(want[0])}\n\n${JSON.stringify(want[1])}`);
    for (let cut = 1; cut < bytes.length; cut++) {
      let first = true;
      const sizes = (): number => {
        const n = first ? cut : bytes.length;
        first = false;
        return n;
      };
      expect(await collect(new WatchStream(body(bytes, sizes), 'test'))).toEqual(want);
    }
  });

  it('a line that is not JSON ends the watch with an error naming it', async () => {
    const bytes = Buffer.from(`${JSON.stringify(events(1)[0])}\n<html>proxy</html>\n`);
    const w = new WatchStream(
      body(bytes, () => 7),
      'pods in test',
    );
    await expect(collect(w)).rejects.toThrow(/watch of pods in test sent a line that is not JSON: <html>proxy/);
  });

  it('tells onProgress listeners of every chunk, whole events or not', async () => {
    const bytes = Buffer.from(`${JSON.stringify(events(1)[0])}\n`);
    const w = new WatchStream(
      body(bytes, () => 10),
      'test',
    );
    let chunks = 0;
    w.onProgress(() => chunks++);
    expect(await collect(w)).toHaveLength(1);
    expect(chunks).toBe(Math.ceil(bytes.length / 10));
  });

  it('refuses a JSON event over the limit once that much of it has arrived, and closes the connection of a stream that never ends the line', async () => {
    let sent = 0;
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    const server = await startLoopbackServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify(events(1)[0])}\n{"type":"ADDED","object":{"metadata":{"name":"huge"},"data":"`);
      const filler = 'x'.repeat(64 * 1024);
      const more = (): void => {
        while (!res.destroyed && sent < 64 * MAX_WATCH_EVENT_BYTES && res.write(filler)) sent += filler.length;
      };
      res.on('drain', more);
      res.on('close', closed);
      more();
    });
    try {
      const w = new WatchStream(await open(server.base), 'configmaps in test');
      const seen: WatchEvent[] = [];
      const err = await (async () => {
        for await (const ev of w) seen.push(ev);
      })().catch((e: unknown) => e as Error);
      expect(seen).toEqual(events(1));
      expect(String(err)).toMatch(/watch of configmaps in test sent an event of more than 10(\.\d)? MiB, over the 10 MiB limit; refused/);
      await gone;
      expect(sent).toBeLessThan(2 * MAX_WATCH_EVENT_BYTES);
    } finally {
      await server.close();
    }
  });

  it('a line just under the limit is an event; a whole line over it is refused', async () => {
    const small = { type: 'ADDED', object: { metadata: { name: 'a' }, data: 'y'.repeat(1000) } };
    const line = Buffer.from(`${JSON.stringify(small)}\n`);
    const w = new WatchStream(
      body(Buffer.concat([line, line]), () => line.length * 2),
      'test',
      new JsonLinesDecoder(line.length - 1),
    );
    expect(await collect(w)).toHaveLength(2);
    const tight = new WatchStream(
      body(line, () => line.length),
      'test',
      new JsonLinesDecoder(line.length - 2),
    );
    await expect(collect(tight)).rejects.toThrow(/sent an event of .* over the .* limit; refused/);
  });

  it('refuses a protobuf frame whose length prefix is over the limit without waiting for its bytes', async () => {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(12 * 1024 * 1024);
    const w = new WatchStream(
      body(Buffer.concat([header, Buffer.alloc(100)]), () => 1000),
      'leases in kube-system',
      new ProtobufWatchDecoder(),
    );
    await expect(collect(w)).rejects.toThrow('watch of leases in kube-system sent an event of 12 MiB, over the 10 MiB limit; refused');
  });

  it('fails as stalled when its connection was found dead, and as broken for any other error', async () => {
    const dead = new PassThrough();
    const stalled = collect(new WatchStream(dead as unknown as IncomingMessage, 'pods in demo'));
    dead.write(`${JSON.stringify(events(1)[0])}\n`);
    setImmediate(() => dead.destroy(new ConnectionStalledError('the connection did not answer a ping within 15s')));
    const err = await stalled.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionStalledError);
    expect(err).toMatchObject({ message: 'watch stalled: the connection did not answer a ping within 15s', networkCode: 'ETIMEDOUT' });

    const reset = new PassThrough();
    const broken = collect(new WatchStream(reset as unknown as IncomingMessage, 'pods in demo'));
    setImmediate(() => reset.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })));
    const other = await broken.catch((e: unknown) => e);
    expect(other).not.toBeInstanceOf(ConnectionStalledError);
    expect(other).toMatchObject({ message: 'watch of pods in demo broke: read ECONNRESET', networkCode: 'ECONNRESET' });
  });
});
