// A kubectl-tree-style snapshot of an object's descendants, for bench/discovery.mjs: what a tool
// that lists instead of watching does to find the children of a custom resource.
//
//   node bench/clients/tree-snapshot.mjs --kubeconfig FILE --namespace NS --target RESOURCE.GROUP/NAME
//
// 1. Discovery (aggregated, one request each for /api and /apis: dist/kube's Discovery): the
//    target's type resolved from the answer an earlier run kept on disk, the kinds to look in from
//    the server's answer, as the trace does (Discovery.served): the same kinds the trace looks for
//    children in (childCandidates of dist/trace: the target's scope, list and watch, no Events).
// 2. One LIST of each of them in the namespace, all at once, full objects in JSON, each answer
//    read whole and JSON.parse'd (as kubectl-tree does with client-go's dynamic client).
// 3. An index of the objects by their ownerReferences' uids, walked from the target
//    (bench/lib/owner-walk.mjs).
// Prints one JSON line: the phases' times, the kinds, objects and bytes, and the descendants found.
import { performance } from 'node:perf_hooks';
import { connect, resourcePath } from '../../dist/kube/index.js';
import { childCandidates } from '../../dist/trace/index.js';
import { descendantsOf } from '../lib/owner-walk.mjs';
import { emit, exitWhenFlushed, fail, parseArgs, peakRssKB } from './common.mjs';

const args = parseArgs(process.argv.slice(2));

async function main() {
  const t0 = performance.now();
  const { client, discovery } = connect({ kubeconfig: args.kubeconfig });
  const slash = args.target.indexOf('/');
  const [type, name] = [args.target.slice(0, slash), args.target.slice(slash + 1)];
  const target = await discovery.resolve(type);
  const all = await discovery.served();
  const kinds = childCandidates(all, target).map((c) => c.info);
  const t1 = performance.now();
  let bytes = 0;
  const lists = await Promise.all(
    kinds.map(async (info) => {
      const res = await client.raw(resourcePath(info, args.namespace));
      bytes += Buffer.byteLength(res.body);
      return { kind: info.kind, items: JSON.parse(res.body).items ?? [] };
    }),
  );
  const t2 = performance.now();
  const { descendants, objects } = descendantsOf(lists, { kind: target.kind, name });
  const t3 = performance.now();
  emit({
    discoveryMs: t1 - t0,
    listMs: t2 - t1,
    walkMs: t3 - t2,
    kinds: kinds.length,
    objects,
    mbytes: bytes / 2 ** 20,
    descendants,
    peakRssKB: peakRssKB(),
  });
  exitWhenFlushed();
}

main().catch(fail);
