// The measured process for @kubernetes/client-node's informer (makeInformer / ListWatch), used
// the way its README shows: the generated API's list function and the library's Watch.
//
//   sync     time until informer.start() resolves (list done, every add callback called, watch
//            open), peak RSS.
//   events   an informer whose 'update' callback records when it saw each write.
//   offline  the recorded watch stream through ListWatch, read by a Watch stand-in that does what
//            the library's Watch does with a response body (readline, JSON.parse, callback).
import { createReadStream } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { CoreV1Api, KubeConfig, ListWatch, makeInformer } from '@kubernetes/client-node';
import { emit, exitWhenFlushed, eventRecorder, fail, parseArgs, peakRssKB } from './common.mjs';

const args = parseArgs(process.argv.slice(2));
const mode = args._[0];

function newInformer() {
  const kc = new KubeConfig();
  kc.loadFromFile(args.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const labelSelector = args.selector || undefined;
  if (args.namespace) {
    const namespace = args.namespace;
    return makeInformer(kc, `/api/v1/namespaces/${namespace}/pods`, () => core.listNamespacedPod({ namespace, labelSelector }), labelSelector);
  }
  return makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces({ labelSelector }), labelSelector);
}

/**
 * An informer error fails the run, except once we are stopping it: stop() aborts the watch
 * request, and the informer reports that abort as an error, after stop() has resolved.
 */
function failUnlessStopping(informer) {
  let stopping = false;
  informer.on('error', (err) => {
    if (!stopping) fail(err);
  });
  return () => {
    stopping = true;
  };
}

async function sync() {
  const informer = newInformer();
  let adds = 0;
  informer.on('add', () => void adds++);
  const stopping = failUnlessStopping(informer);
  const start = performance.now();
  await informer.start();
  const syncMs = performance.now() - start;
  const result = { syncMs, objects: informer.list().length, adds, peakRssKB: peakRssKB(), heapUsedMB: process.memoryUsage().heapUsed / 2 ** 20 };
  stopping();
  await informer.stop();
  emit(result);
}

async function events() {
  const informer = newInformer();
  const rec = eventRecorder(Number(args.expect), Number(args['seq-start'] ?? 0), Number(args['idle-ms'] ?? 10_000));
  informer.on('update', (obj) => rec.record(obj));
  const stopping = failUnlessStopping(informer);
  await informer.start();
  emit({ ready: true });
  await rec.start();
  const result = rec.result();
  stopping();
  await informer.stop();
  emit(result);
}

/** The library's Watch, minus fetch: the file is the response body. Later watches stay open. */
class FileWatch {
  constructor(file) {
    this.file = file;
    this.used = false;
  }
  async watch(_path, _query, callback, _done) {
    const controller = new AbortController();
    if (this.used) return controller;
    this.used = true;
    const body = createReadStream(this.file);
    const lines = createInterface(body);
    lines.on('line', (line) => {
      try {
        const data = JSON.parse(line.toString());
        callback(data.type, data.object, data);
      } catch {
        // ignore parse errors, as the library does
      }
    });
    return controller;
  }
}

async function offline() {
  const expect = Number(args.expect);
  const lw = new ListWatch('/api/v1/pods', new FileWatch(args.file), async () => ({ items: [], metadata: { resourceVersion: '1' } }), false);
  let n = 0;
  let resolveDone;
  const done = new Promise((r) => (resolveDone = r));
  const count = () => {
    if (++n === expect) resolveDone();
  };
  lw.on('add', count);
  lw.on('update', count);
  lw.on('delete', count);
  const start = performance.now();
  await lw.start();
  const timer = setTimeout(() => fail(new Error(`offline: saw ${n} of ${expect} events`)), 5 * 60_000);
  await done;
  const ms = performance.now() - start;
  clearTimeout(timer);
  emit({ ms, events: n, objects: lw.list().length, peakRssKB: peakRssKB() });
  await lw.stop();
}

const modes = { sync, events, offline };
if (!modes[mode]) fail(new Error(`usage: client-node.mjs ${Object.keys(modes).join('|')} [--flags]`));
modes[mode]().then(exitWhenFlushed, fail);
