// Loaded with --import (NODE_OPTIONS) into a measured process: when each HTTP(S) request it sent
// (over HTTP/1.1, or as a stream of an HTTP/2 connection)
// started, when its answer's headers came and when the answer closed, and when the process first
// wrote a line starting "watching " to stderr. At exit, written as JSON to the file
// $BENCH_REQUEST_TIMELINE: { watchingMs, requests: [{ path, method, startMs, headersMs, closedMs,
// newConnection }] }, in ms since the process started (a watch still open at exit has no closedMs;
// newConnection: sent on a connection of its own, not one kept alive from an earlier request; over
// HTTP/2, the first stream of its connection).
// Nothing of the answers is read here: the process reads them as it would.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import { performance } from 'node:perf_hooks';

const file = process.env.BENCH_REQUEST_TIMELINE;
const requests = [];
const sockets = new WeakSet();
let watchingMs;

for (const mod of [http, https]) {
  const request = mod.request;
  mod.request = function timedRequest(...args) {
    const [first, second] = args;
    const path =
      first instanceof URL ? first.pathname + first.search : typeof first === 'string' ? new URL(first).pathname + new URL(first).search : (first?.path ?? '');
    const method = (first instanceof URL || typeof first === 'string' ? second?.method : first?.method) ?? 'GET';
    const entry = { path, method, startMs: performance.now() };
    requests.push(entry);
    const req = request.apply(this, args);
    req.once('socket', (socket) => {
      entry.newConnection = !sockets.has(socket);
      sockets.add(socket);
    });
    req.once('response', (res) => {
      entry.headersMs = performance.now();
      res.once('close', () => (entry.closedMs = performance.now()));
    });
    return req;
  };
}
const connect = http2.connect;
http2.connect = function timedConnect(...args) {
  const session = connect.apply(this, args);
  const request = session.request;
  let streams = 0;
  session.request = function timedStream(headers, ...rest) {
    const entry = { path: headers?.[':path'] ?? '', method: headers?.[':method'] ?? 'GET', startMs: performance.now(), newConnection: streams++ === 0 };
    requests.push(entry);
    const stream = request.call(this, headers, ...rest);
    stream.once('response', () => (entry.headersMs = performance.now()));
    stream.once('close', () => (entry.closedMs = performance.now()));
    return stream;
  };
  return session;
};
// ES modules' named imports of node:http(s) and node:http2 see the wrapped functions too.
syncBuiltinESMExports();

const write = process.stderr.write;
process.stderr.write = function markedWrite(chunk, ...rest) {
  if (watchingMs === undefined && /^watching /m.test(String(chunk))) watchingMs = performance.now();
  return write.call(this, chunk, ...rest);
};

process.on('exit', () => {
  if (file) writeFileSync(file, JSON.stringify({ watchingMs, requests }));
});
