// Decoding the API server's protobuf Lists with protobufjs, for the benchmark's floors (bench/clients/ours.mjs
// `limit --encoding protobuf`): how fast a Node process can turn `application/vnd.kubernetes.protobuf`
// into objects, against JSON.parse of the same List as JSON.
//
// The message definitions are the upstream generated.proto files of k8s.io/api and k8s.io/apimachinery,
// read from the Go module cache the benchmark's client-go program is built with (--proto-root: the
// folder that holds k8s.io/api@VERSION and k8s.io/apimachinery@VERSION; the versions are bench/clientgo/go.mod's).
//
// The wire form (apimachinery's protobuf serializer): the 4 bytes "k8s\0", then a runtime.Unknown whose
// `raw` field holds the object's own message (here a PodList) and whose typeMeta names its kind.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** k8s.io/api and k8s.io/apimachinery's versions in bench/clientgo/go.mod. */
export function protoVersions() {
  const goMod = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'clientgo', 'go.mod'), 'utf8');
  const version = (mod) => {
    const m = new RegExp(`^\\s*${mod.replaceAll('.', '\\.')} (v\\S+)`, 'm').exec(goMod);
    if (!m) throw new Error(`bench/clientgo/go.mod does not require ${mod}`);
    return m[1];
  };
  return { api: version('k8s.io/api'), apimachinery: version('k8s.io/apimachinery') };
}

/** The PodList decoder, from the .proto files under `protoRoot` (a Go module cache). */
export function podListDecoder(protoRoot) {
  const v = protoVersions();
  const modules = [
    ['k8s.io/api/', join(protoRoot, `k8s.io/api@${v.api}`)],
    ['k8s.io/apimachinery/', join(protoRoot, `k8s.io/apimachinery@${v.apimachinery}`)],
  ];
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    for (const [prefix, dir] of modules) if (target.startsWith(prefix)) return join(dir, target.slice(prefix.length));
    return target;
  };
  root.loadSync(['k8s.io/api/core/v1/generated.proto', 'k8s.io/apimachinery/pkg/runtime/generated.proto'], { keepCase: true });
  const Unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const PodList = root.lookupType('k8s.io.api.core.v1.PodList');
  return (body) => {
    if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw new Error('not a Kubernetes protobuf body (no "k8s\\0" prefix)');
    const envelope = Unknown.decode(body.subarray(4));
    if (envelope.typeMeta?.kind !== 'PodList') throw new Error(`expected a PodList, got ${envelope.typeMeta?.kind}`);
    return PodList.decode(envelope.raw);
  };
}

// Only what paging needs, for the download-only floors: a List's metadata (its field 1) holds the
// continue token (ListMeta field 3). protobufjs skips the items (field 2) by their length.
const head = protobuf.Root.fromJSON({
  nested: {
    Unknown: { fields: { raw: { type: 'bytes', id: 2 } } },
    ListMeta: { fields: { continue: { type: 'string', id: 3 } } },
    ListHead: { fields: { metadata: { type: 'ListMeta', id: 1 } } },
  },
});
const UnknownRaw = head.lookupType('Unknown');
const ListHead = head.lookupType('ListHead');

/** The continue token of a List, without decoding its items: protobuf or JSON. */
export function listContinue(body, protobufEncoded) {
  if (protobufEncoded) return ListHead.decode(UnknownRaw.decode(body.subarray(4)).raw).metadata?.continue || undefined;
  // JSON: the API server writes kind, apiVersion and metadata before items.
  const items = body.indexOf('"items":');
  return JSON.parse(`${body.subarray(0, items).toString().replace(/,\s*$/, '')}}`).metadata?.continue || undefined;
}
