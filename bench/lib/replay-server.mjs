// A stand-in for kube-apiserver that serves one namespace's Pods over plain HTTP on 127.0.0.1:
// a list (the Pods as the real server gave them), and watches to which it sends MODIFIED events of
// those Pods at a fixed rate, each with the next `bench/seq` annotation and resourceVersion. It
// measures what the watch client itself adds to the lag at rates this machine's API server
// cannot take (about 250 writes/s here): every event is stamped with the time it was written to
// the sockets, so the lag is handler time − send time, with no server write path in between.
//
// Not a Kubernetes API server: no selectors, no bookmarks, no timeouts; a 404 Status for any
// other path. Enough for the three clients' list + watch of one namespace.
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { nowMs } from './stats.mjs';

export async function startReplayServer({ namespace, pods }) {
  const path = `/api/v1/namespaces/${namespace}/pods`;
  let rv = 1_000_000;
  const watchers = new Set();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://replay');
    if (url.pathname !== path || req.method !== 'GET') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
          message: `${req.method} ${url.pathname} is not served here`,
        }),
      );
      return;
    }
    const watch = url.searchParams.get('watch');
    if (watch === 'true' || watch === '1') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
      res.flushHeaders();
      res.socket?.setNoDelay(true);
      watchers.add(res);
      res.on('close', () => watchers.delete(res));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: String(rv) }, items: pods }));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;

  /** A kubeconfig for this server, written to `file` (client-node takes http:// only with skip-TLS-verify). */
  const writeKubeconfig = (file) => {
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: replay\n  cluster:\n    server: http://127.0.0.1:${port}\n    insecure-skip-tls-verify: true`,
        'users:',
        '- name: replay\n  user: {}',
        'contexts:',
        '- name: replay\n  context:\n    cluster: replay\n    user: replay',
        'current-context: replay',
        '',
      ].join('\n'),
    );
    return file;
  };

  /**
   * Sends `count` MODIFIED events at `rate` per second to every open watch (paced against the
   * clock, several per timer tick when the timer is late); resolves with when each was sent.
   */
  const replay = async ({ rate, count, seqStart }) => {
    if (watchers.size === 0) throw new Error('replay: no watch is open');
    const times = new Array(count).fill(0);
    const start = nowMs();
    let i = 0;
    while (i < count) {
      const now = nowMs();
      const due = Math.min(count, Math.floor(((now - start) * rate) / 1000) + 1);
      for (; i < due; i++) {
        const pod = pods[i % pods.length];
        pod.metadata.annotations = { ...pod.metadata.annotations, 'bench/seq': String(seqStart + i) };
        pod.metadata.resourceVersion = String(++rv);
        const line = `${JSON.stringify({ type: 'MODIFIED', object: { kind: 'Pod', apiVersion: 'v1', ...pod } })}\n`;
        for (const w of watchers) w.write(line);
        times[i] = nowMs();
      }
      if (i < count) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return { times, startMs: start, watchers: watchers.size };
  };

  const close = () =>
    new Promise((resolve) => {
      for (const w of watchers) w.destroy();
      server.closeAllConnections?.();
      server.close(() => resolve());
    });

  return { port, writeKubeconfig, replay, close, watchers: () => watchers.size };
}
