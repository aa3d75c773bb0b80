import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { rng } from '../../tools/testing/rng.js';
import type { WatchEvent } from './types.js';
import { WatchStream } from './watch-stream.js';

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
});
