/**
 * The fault proxy's throttle, on real sockets on the loopback address: a client writes random
 * bytes through the proxy to an echo server and reads them back. Throttled, the echo arrives at
 * about the limit (each direction is limited, and the echo can go no faster than either), every
 * byte intact and in order; turning the throttle off forwards what waits at once; it holds through
 * a delay and a freeze; closing leaves no timer behind.
 */
import { randomBytes } from 'node:crypto';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaultProxy } from './fault-proxy.js';

const KiB = 1024;

interface Echoed {
  socket: Socket;
  /** Bytes received so far, in order. */
  received(): Buffer;
  /** Resolves with the time (performance.now()) the n-th byte arrived. */
  reached(n: number): Promise<number>;
}

/** A client of the proxy that collects what comes back. */
async function client(proxy: FaultProxy): Promise<Echoed> {
  const socket = createConnection({ host: '127.0.0.1', port: proxy.port });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const chunks: Buffer[] = [];
  let total = 0;
  const waiting: { n: number; resolve: (at: number) => void }[] = [];
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    total += chunk.length;
    const at = performance.now();
    for (const w of waiting.filter((x) => x.n <= total)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(at);
    }
  });
  return {
    socket,
    received: () => Buffer.concat(chunks),
    reached: (n) => (n <= total ? Promise.resolve(performance.now()) : new Promise((resolve) => waiting.push({ n, resolve }))),
  };
}

const timeouts = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/** Resolves once `fn` holds, checking every 10 ms; fails after `ms`. */
async function until(what: string, fn: () => boolean, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!fn()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('FaultProxy.throttle', () => {
  let echo: Server;
  let proxy: FaultProxy;

  beforeEach(async () => {
    echo = createServer((s) => {
      // The proxy destroys its side when a test closes a connection: a reset here is expected.
      s.on('error', () => s.destroy());
      s.pipe(s);
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    proxy = await FaultProxy.start(`tcp://127.0.0.1:${(echo.address() as AddressInfo).port}`);
  });

  afterEach(async () => {
    await proxy.close();
    await new Promise<void>((resolve) => echo.close(() => resolve()));
  });

  it('forwards at about the limit in both directions, every byte intact and in order', async () => {
    const rate = 64 * KiB;
    proxy.throttle(rate);
    const c = await client(proxy);
    const data = randomBytes(160 * KiB);
    const t0 = performance.now();
    c.socket.write(data);
    // Halfway, neither direction is ahead of the limit (plus the bucket, a tenth of a second's bytes).
    const halfway = await c.reached(data.length / 2);
    const [conn] = proxy.connections();
    expect(conn!.up).toBeLessThanOrEqual(((halfway - t0) / 1000 + 0.1) * rate);
    const done = await c.reached(data.length);
    const measured = data.length / ((done - t0) / 1000);
    expect(measured).toBeGreaterThan(0.8 * rate);
    expect(measured).toBeLessThan(1.05 * rate);
    expect(c.received().equals(data)).toBe(true);
    expect(proxy.connections()[0]).toMatchObject({ up: data.length, down: data.length });
    c.socket.destroy();
  });

  it('turned off, forwards what waits at once, intact and in order', async () => {
    proxy.throttle(4 * KiB);
    const c = await client(proxy);
    const data = randomBytes(256 * KiB);
    c.socket.write(data);
    await c.reached(1);
    expect(c.received().length).toBeLessThan(32 * KiB);
    const off = performance.now();
    proxy.throttle(0);
    const done = await c.reached(data.length);
    // 256 KiB at 4 KiB/s would take a minute.
    expect(done - off).toBeLessThan(2_000);
    expect(c.received().equals(data)).toBe(true);
    c.socket.destroy();
  });

  it('holds through a delay and a freeze: nothing moves while frozen, all of it arrives in order after the thaw', async () => {
    proxy.throttle(32 * KiB);
    proxy.delay(100);
    const c = await client(proxy);
    const data = randomBytes(64 * KiB);
    const t0 = performance.now();
    c.socket.write(data);
    const first = await c.reached(1);
    expect(first - t0).toBeGreaterThanOrEqual(2 * 100 - 5); // delayed on the way there and back
    await c.reached(8 * KiB);
    proxy.freeze();
    const [atFreeze] = proxy.connections();
    const frozenFor = performance.now();
    // An observation window: a frozen connection forwards nothing, however many tokens accrue.
    await new Promise((r) => setTimeout(r, 600));
    const [later] = proxy.connections();
    expect(later).toMatchObject({ up: atFreeze!.up, down: atFreeze!.down, frozen: true });
    expect(performance.now() - frozenFor).toBeGreaterThanOrEqual(590);
    proxy.thaw();
    await c.reached(data.length);
    expect(c.received().equals(data)).toBe(true);
    c.socket.destroy();
  });

  it('applies to connections opened after it started, and leaves no timer behind when they close', async () => {
    const before = timeouts();
    proxy.throttle(2 * KiB);
    proxy.delay(50);
    const c = await client(proxy);
    c.socket.write(randomBytes(64 * KiB));
    await c.reached(1);
    expect(c.received().length).toBeLessThan(16 * KiB);
    await until('a timer of the throttle', () => timeouts() > before);
    c.socket.destroy();
    await until('the proxy to see the close', () => proxy.connections()[0]!.closed);
    await until('every timer of the throttle and the delay to be gone', () => timeouts() <= before);
    expect(timeouts()).toBeLessThanOrEqual(before);
  });
});
