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
 *   byte (a hung server: it accepts, then never answers).
 * - thaw(): forwarding resumes; what was held back is delivered, as TCP would retransmit it.
 * - reset(): every connection is reset (RST) on both sides.
 * - delay(ms): each chunk is forwarded `ms` later, in order (0: at once).
 * - kubeconfig(): a copy of a kubeconfig whose every cluster's server is the proxy.
 *
 * Connections are numbered in the order accepted; `connections()` says which are still open, so
 * a test can tell that the client gave a connection up (its close reaches the proxy once the
 * connection is thawed) and opened a new one.
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
}

export class FaultProxy {
  private readonly conns: Conn[] = [];
  private freezeNew = false;
  private delayMs = 0;
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
    this.delayMs = Math.max(0, ms);
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
      c.client.destroy();
      c.server.destroy();
    }
    await new Promise<void>((resolve) => this.listener.close(() => resolve()));
    if (this.tmp) rmSync(this.tmp, { recursive: true, force: true });
  }

  private accept(client: Socket): void {
    const server = createConnection({ host: this.target.host, port: this.target.port });
    server.pause();
    const c: Conn = { id: this.conns.length + 1, up: 0, down: 0, closed: false, frozen: false, client, server };
    this.conns.push(c);
    this.pipe(c, client, server, 'up');
    this.pipe(c, server, client, 'down');
    const close = (): void => {
      if (c.closed) return;
      c.closed = true;
      client.destroy();
      server.destroy();
    };
    for (const s of [client, server]) {
      s.on('close', close);
      s.on('error', close);
    }
    if (this.freezeNew) c.frozen = true;
    else {
      client.resume();
      server.resume();
    }
  }

  /**
   * Forwards `from` to `to` by hand, so that forwarding can stop while both stay open: a frozen
   * connection's sockets are paused, so nothing is read and the kernel's buffers and TCP flow
   * control hold the rest. Back-pressure of `to` pauses `from` too.
   */
  private pipe(c: Conn, from: Socket, to: Socket, dir: 'up' | 'down'): void {
    let queue: { at: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    const write = (chunk: Buffer): void => {
      c[dir] += chunk.length;
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => {
          if (!c.frozen && !c.closed) from.resume();
        });
      }
    };
    const drain = (): void => {
      timer = undefined;
      const now = Date.now();
      while (queue.length > 0 && queue[0]!.at <= now) write(queue.shift()!.chunk);
      if (queue.length > 0) timer = setTimeout(drain, queue[0]!.at - now);
    };
    from.on('data', (chunk: Buffer) => {
      if (c.closed) return;
      if (this.delayMs === 0 && queue.length === 0) return write(chunk);
      queue.push({ at: Date.now() + this.delayMs, chunk });
      timer ??= setTimeout(drain, this.delayMs);
    });
    from.on('end', () => {
      const finish = (): void => void to.end();
      if (queue.length === 0) return finish();
      const last = queue.at(-1)!.at;
      setTimeout(finish, Math.max(0, last - Date.now()) + 1);
    });
    from.on('close', () => {
      if (timer) clearTimeout(timer);
      queue = [];
    });
  }

  private setFrozen(c: Conn, frozen: boolean): void {
    c.frozen = frozen;
    if (frozen) {
      c.client.pause();
      c.server.pause();
    } else {
      c.client.resume();
      c.server.resume();
    }
  }
}
