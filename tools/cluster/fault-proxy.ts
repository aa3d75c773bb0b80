/**
 * A TCP proxy on 127.0.0.1 between the plugins and the real API server, for network faults the
 * e2e tests and the soak benchmark make on purpose. Bytes pass through untouched (TLS included: the client's handshake is
 * with kube-apiserver itself, whose certificate names IP 127.0.0.1, so it verifies whatever port
 * the proxy listens on).
 *
 * - freeze(): every connection open now stops forwarding in both directions while both of its
 *   sockets stay open: to the client, a half-open connection (the flow a NAT entry, load
 *   balancer or VPN dropped; TCP keepalives still get their ACK). Connections opened later go
 *   through, as a new flow would; `{ newConnections: true }` freezes those too from their first
 *   byte (a hung server: it accepts, then never answers). What a delay or the throttle holds
 *   back is held too.
 * - thaw(): forwarding resumes; what was held back is delivered, as TCP would retransmit it.
 * - reset(): every connection is reset (RST) on both sides.
 * - delay(ms): each chunk is forwarded `ms` later, in order (0: at once).
 * - throttle(bytesPerSecond): each direction of every connection, open or opened later, forwards
 *   at most that many bytes a second (a slow or congested link): a token bucket per direction,
 *   empty when the throttle starts and holding at most a tenth of a second's bytes, so a chunk
 *   goes out in pieces as tokens accrue, in order, after any delay. The client is read no faster
 *   than that (once a second's bytes wait, reading pauses and TCP flow control holds the rest).
 *   0 or undefined turns it off, and whatever waits is forwarded at once.
 * - kubeconfig(): a copy of a kubeconfig whose every cluster's server is the proxy.
 *
 * Connections are numbered in the order accepted; `connections()` says which are still open, so
 * a test can tell that the client gave a connection up (its close reaches the proxy once the
 * connection is thawed) and opened a new one. A closed connection leaves no timer behind.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';

export interface ProxiedConnection {
  /** 1, 2, … in the order accepted. */
  id: number;
  /** Bytes forwarded from the client to the server, and back. */
  up: number;
  down: number;
  /** Either side closed (the other is then closed too). */
  closed: boolean;
  frozen: boolean;
}

interface Conn extends ProxiedConnection {
  client: Socket;
  server: Socket;
  forwarders: Forwarder[];
}

/** What every connection's forwarders read from the proxy when they forward. */
interface Faults {
  delayMs: number;
  /** Bytes a second each direction may forward; 0: unlimited. */
  bytesPerSecond: number;
}

export class FaultProxy {
  private readonly conns: Conn[] = [];
  private freezeNew = false;
  private readonly faults: Faults = { delayMs: 0, bytesPerSecond: 0 };
  private tmp: string | undefined;

  private constructor(
    private readonly listener: Server,
    private readonly target: { host: string; port: number },
  ) {
    listener.on('connection', (client) => this.accept(client));
  }

  /** Listens on 127.0.0.1 (a free port) and forwards to `target` (https://HOST:PORT). */
  static async start(target: string): Promise<FaultProxy> {
    const url = new URL(target);
    const listener = createServer({ pauseOnConnect: true });
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(0, '127.0.0.1', () => resolve());
    });
    return new FaultProxy(listener, { host: url.hostname, port: Number(url.port || 443) });
  }

  get port(): number {
    return (this.listener.address() as AddressInfo).port;
  }

  /** https://127.0.0.1:PORT */
  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** Every connection accepted so far, oldest first (copies). */
  connections(): ProxiedConnection[] {
    return this.conns.map(({ id, up, down, closed, frozen }) => ({ id, up, down, closed, frozen }));
  }

  /** Stops forwarding on every open connection (and, with newConnections, on those to come). */
  freeze(options: { newConnections?: boolean } = {}): void {
    this.freezeNew = options.newConnections === true;
    for (const c of this.conns) if (!c.closed) this.setFrozen(c, true);
  }

  /** Forwarding resumes everywhere. */
  thaw(): void {
    this.freezeNew = false;
    for (const c of this.conns) if (!c.closed) this.setFrozen(c, false);
  }

  /** Resets every open connection (RST to both sides). */
  reset(): void {
    for (const c of this.conns) {
      if (c.closed) continue;
      c.closed = true;
      c.client.resetAndDestroy();
      c.server.resetAndDestroy();
    }
  }

  /** Forwards each chunk `ms` later (0: at once). */
  delay(ms: number): void {
    this.faults.delayMs = Math.max(0, ms);
  }

  /** Limits each direction of every connection to `bytesPerSecond` (0 or undefined: no limit; what waits goes at once). */
  throttle(bytesPerSecond?: number): void {
    const rate = bytesPerSecond !== undefined && Number.isFinite(bytesPerSecond) && bytesPerSecond > 0 ? bytesPerSecond : 0;
    if (rate === this.faults.bytesPerSecond) return;
    this.faults.bytesPerSecond = rate;
    for (const c of this.conns) if (!c.closed) for (const f of c.forwarders) f.rateChanged();
  }

  /**
   * Writes a copy of `source` whose clusters all point at the proxy (certificates and keys stay
   * where they are) and returns its path; removed by close().
   */
  kubeconfig(source: string): string {
    const doc = parseDocument(readFileSync(source, 'utf8'));
    const clusters = doc.get('clusters') as { items: { setIn(path: string[], value: unknown): void }[] };
    for (const entry of clusters.items) entry.setIn(['cluster', 'server'], this.url);
    this.tmp ??= mkdtempSync(join(tmpdir(), 'informer-trace-proxy-'));
    const file = join(this.tmp, 'kubeconfig');
    writeFileSync(file, doc.toString());
    return file;
  }

  /** Stops listening, closes every connection, removes the kubeconfig copy. */
  async close(): Promise<void> {
    for (const c of this.conns) {
      c.closed = true;
      for (const f of c.forwarders) f.stop();
      c.client.destroy();
      c.server.destroy();
    }
    await new Promise<void>((resolve) => this.listener.close(() => resolve()));
    if (this.tmp) rmSync(this.tmp, { recursive: true, force: true });
  }

  private accept(client: Socket): void {
    const server = createConnection({ host: this.target.host, port: this.target.port });
    server.pause();
    const c: Conn = { id: this.conns.length + 1, up: 0, down: 0, closed: false, frozen: this.freezeNew, client, server, forwarders: [] };
    this.conns.push(c);
    c.forwarders.push(new Forwarder(c, client, server, 'up', this.faults), new Forwarder(c, server, client, 'down', this.faults));
    const close = (): void => {
      if (c.closed) return;
      c.closed = true;
      for (const f of c.forwarders) f.stop();
      client.destroy();
      server.destroy();
    };
    for (const s of [client, server]) {
      s.on('close', close);
      s.on('error', close);
    }
    for (const f of c.forwarders) f.flow();
  }

  private setFrozen(c: Conn, frozen: boolean): void {
    c.frozen = frozen;
    for (const f of c.forwarders) f.kick();
  }
}

/** The most a token bucket holds: a tenth of a second's bytes. */
const BUCKET_SECONDS = 0.1;

/**
 * One direction of a connection, forwarded by hand so that forwarding can stop while both sockets
 * stay open. A chunk read from `from` waits out the delay, then the throttle's tokens, then goes
 * to `to`, in the order read. `from` is read only while the connection is not frozen, `to` takes
 * more (back-pressure) and at most a second's bytes (at least 64 KiB) wait for tokens: otherwise
 * it is paused, and the kernel's buffers and TCP flow control hold the rest.
 */
class Forwarder {
  private delayed: { at: number; chunk: Buffer }[] = [];
  private paced: Buffer[] = [];
  private pacedBytes = 0;
  private delayTimer: NodeJS.Timeout | undefined;
  private paceTimer: NodeJS.Timeout | undefined;
  private tokens = 0;
  private refilledAt = 0;
  private drainWait = false;
  private ended = false;
  private endSent = false;
  private stopped = false;

  constructor(
    private readonly c: Conn,
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly dir: 'up' | 'down',
    private readonly faults: Faults,
  ) {
    this.refilledAt = performance.now();
    from.on('data', (chunk: Buffer) => this.read(chunk));
    from.on('end', () => {
      this.ended = true;
      this.kick();
    });
    from.on('close', () => this.stop());
  }

  /** Pauses or resumes reading `from`, as the state now calls for. */
  flow(): void {
    const hold = this.c.frozen || this.c.closed || this.drainWait || this.pacedBytes >= Math.max(64 * 1024, this.faults.bytesPerSecond);
    if (hold) this.from.pause();
    else this.from.resume();
  }

  /** Forwards what may go now and sets a timer for the rest (after a thaw, a drain, a new chunk). */
  kick(): void {
    if (this.stopped || this.c.closed) return;
    if (!this.c.frozen) {
      this.releaseDelayed();
      this.pace();
      if (this.ended && !this.endSent && this.delayed.length === 0 && this.paced.length === 0) {
        this.endSent = true;
        this.to.end();
      }
    }
    this.flow();
  }

  /** The throttle changed: a new bucket, empty (or none), and what waits is forwarded as it allows. */
  rateChanged(): void {
    this.tokens = 0;
    this.refilledAt = performance.now();
    if (this.paceTimer) clearTimeout(this.paceTimer);
    this.paceTimer = undefined;
    this.kick();
  }

  /** The connection closed: no timer stays, nothing more is written. */
  stop(): void {
    this.stopped = true;
    if (this.delayTimer) clearTimeout(this.delayTimer);
    if (this.paceTimer) clearTimeout(this.paceTimer);
    this.delayTimer = this.paceTimer = undefined;
    this.delayed = [];
    this.paced = [];
    this.pacedBytes = 0;
  }

  private read(chunk: Buffer): void {
    if (this.stopped || this.c.closed) return;
    if (this.faults.delayMs > 0 || this.delayed.length > 0) this.delayed.push({ at: Date.now() + this.faults.delayMs, chunk });
    else this.enqueue(chunk);
    this.kick();
  }

  private enqueue(chunk: Buffer): void {
    this.paced.push(chunk);
    this.pacedBytes += chunk.length;
  }

  /** Moves the chunks whose delay is over to the throttle's queue; a timer for the next one. */
  private releaseDelayed(): void {
    if (this.delayTimer) return;
    const now = Date.now();
    while (this.delayed.length > 0 && this.delayed[0]!.at <= now) this.enqueue(this.delayed.shift()!.chunk);
    if (this.delayed.length > 0)
      this.delayTimer = setTimeout(() => {
        this.delayTimer = undefined;
        this.kick();
      }, this.delayed[0]!.at - now);
  }

  /** Writes what the tokens allow, splitting a chunk if need be; a timer for when more accrue. */
  private pace(): void {
    if (this.paceTimer) return;
    while (this.paced.length > 0 && !this.drainWait) {
      const rate = this.faults.bytesPerSecond;
      let piece = this.paced[0]!;
      if (rate > 0) {
        const capacity = Math.max(1, Math.floor(rate * BUCKET_SECONDS));
        const now = performance.now();
        this.tokens = Math.min(capacity, this.tokens + ((now - this.refilledAt) / 1000) * rate);
        this.refilledAt = now;
        // Waits for a quarter of the bucket (or the whole piece, if smaller): a late timer loses no tokens.
        const need = Math.min(piece.length, Math.max(1, Math.floor(capacity / 4)));
        if (this.tokens < need) {
          this.paceTimer = setTimeout(
            () => {
              this.paceTimer = undefined;
              this.kick();
            },
            Math.ceil(((need - this.tokens) / rate) * 1000),
          );
          return;
        }
        const n = Math.min(piece.length, Math.floor(this.tokens));
        this.tokens -= n;
        if (n < piece.length) {
          this.paced[0] = piece.subarray(n);
          piece = piece.subarray(0, n);
        } else this.paced.shift();
      } else this.paced.shift();
      this.pacedBytes -= piece.length;
      this.write(piece);
    }
  }

  private write(chunk: Buffer): void {
    this.c[this.dir] += chunk.length;
    if (this.to.write(chunk)) return;
    this.drainWait = true;
    this.to.once('drain', () => {
      this.drainWait = false;
      this.kick();
    });
  }
}
