// The measured process for this project's informer (imports ../../dist, so it measures what
// ships), plus the two floors it is compared against. Modes:
//
//   sync     SharedIndexInformer over Pods: time until the handler's registration has synced,
//            peak RSS. --transform default|none (default = stripManagedFields); --watch-list for a
//            streaming list (sendInitialEvents) instead of list + watch; --encoding json: never
//            ask for protobuf (by default the informer asks for it, as for every built-in kind);
//            --read-all: then read every object's spec and status (which a List's objects decode
//            on first read), the time counted in syncMs and also given alone as readMs.
//            --gzip false: do not ask for gzip (--disable-compression); by default List pages
//            arrive compressed, as client-go asks for them.
//   limit    the floor for sync: GET every page of the same list the reflector asks for
//            (resourceVersion=0, limit=500) and JSON.parse it; no informer. --encoding protobuf:
//            ask for application/vnd.kubernetes.protobuf and decode each page with protobufjs
//            (bench/lib/protobuf-list.mjs; --proto-root: the Go module cache with the .proto
//            files). --decode false: download only (the API server's encoding and the transfer).
//   events   an informer whose onUpdate records when it saw each write (by sequence number).
//   offline  a recorded watch stream replayed from a file through WatchStream (line splitting and
//            JSON.parse) → Reflector → DeltaFIFO → Indexer → handler. With --encoding protobuf
//            the file holds the same watch in protobuf frames, decoded as a protobuf watch is.
//   parse    the floor for offline: the same file, the same chunked read, split into lines and
//            JSON.parse'd; nothing else. With --keep, also what any cache must do: keep the newest
//            object per namespace/name in a Map (managedFields dropped, as our default transform
//            does), so the objects live long enough to be promoted by V8's garbage collector.
//            With --encoding protobuf: the protobuf file through our frame decoder, nothing else
//            (managedFields skipped, as the informer's default transform has them skipped).
import { createReadStream } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { metaNamespaceIndexFunc, NamespaceIndex, SharedIndexInformer } from '../../dist/informer/index.js';
import { connect, ResourceListerWatcher } from '../../dist/kube/index.js';
import { ProtobufWatchDecoder } from '../../dist/kube/protobuf/stream.js';
import { protobufDecodeOptions } from '../../dist/kube/lister-watcher.js';
import { WatchStream } from '../../dist/kube/watch-stream.js';
import { emit, exitWhenFlushed, eventRecorder, fail, parseArgs, peakRssKB, until } from './common.mjs';

const podsResource = {
  group: '',
  version: 'v1',
  resource: 'pods',
  kind: 'Pod',
  namespaced: true,
  shortNames: ['po'],
  singularName: 'pod',
  verbs: ['list', 'watch'],
};
const args = parseArgs(process.argv.slice(2));
const mode = args._[0];

function listerWatcher() {
  const kube = connect({ kubeconfig: args.kubeconfig, disableCompression: args.gzip === 'false' });
  const lw = new ResourceListerWatcher(kube.client, podsResource, {
    namespace: args.namespace || undefined,
    ...(args.selector ? { labelSelector: args.selector } : {}),
    ...(args.encoding === 'json' ? { encoding: 'json' } : {}),
  });
  return { kube, lw };
}

function newInformer(lw) {
  return new SharedIndexInformer(lw, {
    indexers: { [NamespaceIndex]: metaNamespaceIndexFunc },
    ...(args.transform === 'none' ? { transform: null } : {}),
    ...(args['watch-list'] === 'true' ? { useWatchList: true } : {}),
  });
}

async function sync() {
  const { lw } = listerWatcher();
  const informer = newInformer(lw);
  let adds = 0;
  const reg = informer.addEventHandler({ onAdd: () => void adds++ });
  const ac = new AbortController();
  const start = performance.now();
  const running = informer.run(ac.signal);
  await until(() => reg.hasSynced(), 5 * 60_000, 'the cache to sync');
  let syncMs = performance.now() - start;
  let readMs;
  if (args['read-all'] === 'true') {
    // What a List's objects leave for their first read (spec and status), paid here for all.
    const t = performance.now();
    let n = 0;
    for (const obj of informer.getStore().list()) if (obj.spec !== undefined && obj.status !== undefined) n++;
    if (n === 0) throw new Error('no object has a spec and a status');
    readMs = performance.now() - t;
    syncMs += readMs;
  }
  const result = { syncMs, readMs, objects: informer.getStore().size(), adds, peakRssKB: peakRssKB(), heapUsedMB: process.memoryUsage().heapUsed / 2 ** 20 };
  ac.abort();
  await running;
  emit(result);
}

async function limit() {
  const { kube } = listerWatcher();
  const path = args.namespace ? `/api/v1/namespaces/${args.namespace}/pods` : '/api/v1/pods';
  const protobuf = args.encoding === 'protobuf';
  const decode = args.decode !== 'false';
  // The protobufjs decoder is built before the clock starts, as a program would at startup.
  const { listContinue, podListDecoder } = await import('../lib/protobuf-list.mjs');
  const decodeList = protobuf && decode ? podListDecoder(args['proto-root']) : undefined;
  const start = performance.now();
  let items = 0;
  let pages = 0;
  let bytes = 0;
  let cont;
  const kept = [];
  do {
    const query = { resourceVersion: cont ? undefined : '0', limit: 500, continue: cont, labelSelector: args.selector || undefined };
    const res = await kube.client.openOk(path, { query, accept: protobuf ? 'application/vnd.kubernetes.protobuf' : 'application/json' });
    const chunks = [];
    for await (const c of res) chunks.push(c);
    const body = Buffer.concat(chunks);
    bytes += body.length;
    pages++;
    if (!decode) {
      // Download only: the API server's encoding and the transfer; the continue token is read
      // from the List's metadata without decoding the items.
      cont = listContinue(body, protobuf);
      continue;
    }
    const list = protobuf ? decodeList(body) : JSON.parse(body.toString());
    items += list.items.length;
    for (const it of list.items) kept.push(it); // what a cache would keep
    cont = list.metadata?.continue || undefined;
  } while (cont);
  const ms = performance.now() - start;
  emit({ syncMs: ms, objects: items, pages, mbytes: bytes / 2 ** 20, peakRssKB: peakRssKB(), kept: kept.length });
}

async function events() {
  const { lw } = listerWatcher();
  const informer = newInformer(lw);
  const rec = eventRecorder(Number(args.expect), Number(args['seq-start'] ?? 0), Number(args['idle-ms'] ?? 10_000));
  // Also the part of the lag spent inside this process: from the reflector reading the watch
  // event (NotificationInfo.receivedAt, Date.now()) to the handler call.
  const inProcess = [];
  const reg = informer.addEventHandler({
    onUpdate: (_old, obj, info) => {
      inProcess.push(Date.now() - info.receivedAt);
      rec.record(obj);
    },
  });
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  await until(() => reg.hasSynced(), 5 * 60_000, 'the cache to sync');
  emit({ ready: true });
  await rec.start();
  inProcess.sort((a, b) => a - b);
  const result = {
    ...rec.result(),
    inProcessP50: inProcess[Math.floor(inProcess.length * 0.5)],
    inProcessP99: inProcess[Math.min(inProcess.length - 1, Math.ceil(inProcess.length * 0.99) - 1)],
  };
  ac.abort();
  await running;
  emit(result);
}

/** A ListerWatcher over a recorded stream: an empty list, then the file as the first watch. */
function fileListerWatcher(file, encoding) {
  let watched = false;
  return {
    description: `replay of ${file}`,
    list: async () => ({ items: [], resourceVersion: '1' }),
    watch: async (_opts, signal, decode) => {
      if (!watched) {
        watched = true;
        // A file stream has what WatchStream uses of an IncomingMessage: setEncoding, data/end/
        // error/close events, pause/resume/isPaused and destroy.
        if (encoding !== 'protobuf') return new WatchStream(createReadStream(file), 'replay');
        // As ResourceListerWatcher.watch decodes a protobuf answer, with the reflector's options.
        return new WatchStream(createReadStream(file), 'replay', new ProtobufWatchDecoder(protobufDecodeOptions(decode)));
      }
      // Later watches stay open and empty until the informer stops.
      return {
        stop() {},
        async *[Symbol.asyncIterator]() {
          await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
        },
      };
    },
  };
}

async function offline() {
  const expect = Number(args.expect);
  const informer = newInformer(fileListerWatcher(args.file, args.encoding));
  let n = 0;
  let resolveDone;
  const done = new Promise((r) => (resolveDone = r));
  const count = () => {
    if (++n === expect) resolveDone();
  };
  informer.addEventHandler({ onAdd: count, onUpdate: count, onDelete: count });
  const ac = new AbortController();
  const start = performance.now();
  const running = informer.run(ac.signal);
  const timer = setTimeout(() => fail(new Error(`offline: saw ${n} of ${expect} events`)), 5 * 60_000);
  await done;
  const ms = performance.now() - start;
  clearTimeout(timer);
  const result = { ms, events: n, objects: informer.getStore().size(), peakRssKB: peakRssKB() };
  ac.abort();
  await running;
  emit(result);
}

async function parse() {
  if (args.encoding === 'protobuf') return parseProtobuf();
  const expect = Number(args.expect);
  const start = performance.now();
  let n = 0;
  let partial = '';
  let sink = 0;
  const keep = args.keep === 'true' ? new Map() : undefined;
  await new Promise((resolve, reject) => {
    const s = createReadStream(args.file);
    s.setEncoding('utf8');
    s.on('data', (chunk) => {
      const text = partial + chunk;
      let begin = 0;
      let nl = text.indexOf('\n');
      while (nl !== -1) {
        if (nl > begin) {
          const ev = JSON.parse(text.slice(begin, nl));
          sink += ev.type.length;
          if (keep) {
            const m = ev.object.metadata;
            delete m.managedFields;
            keep.set(`${m.namespace}/${m.name}`, ev.object);
          }
          n++;
        }
        begin = nl + 1;
        nl = text.indexOf('\n', begin);
      }
      partial = text.slice(begin);
    });
    s.on('end', resolve);
    s.on('error', reject);
  });
  const ms = performance.now() - start;
  if (n !== expect) throw new Error(`parse: ${n} lines, expected ${expect}`);
  emit({ ms, events: n, sink, peakRssKB: peakRssKB() });
}

async function parseProtobuf() {
  const expect = Number(args.expect);
  const start = performance.now();
  let n = 0;
  let sink = 0;
  const decoder = new ProtobufWatchDecoder({ skipManagedFields: true });
  const push = (ev) => {
    sink += ev.type.length;
    n++;
  };
  await new Promise((resolve, reject) => {
    const s = createReadStream(args.file);
    s.on('data', (chunk) => decoder.write(chunk, push));
    s.on('end', resolve);
    s.on('error', reject);
  });
  decoder.end();
  const ms = performance.now() - start;
  if (n !== expect) throw new Error(`parse: ${n} frames, expected ${expect}`);
  emit({ ms, events: n, sink, peakRssKB: peakRssKB() });
}

const modes = { sync, limit, events, offline, parse };
if (!modes[mode]) fail(new Error(`usage: ours.mjs ${Object.keys(modes).join('|')} [--flags]`));
modes[mode]().then(exitWhenFlushed, fail);
