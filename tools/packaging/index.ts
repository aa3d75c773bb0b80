/**
 * tools/packaging: `npm run package` (cli.ts), the kubectl plugin archives and their krew manifests.
 *
 * - One program per archive: a Node single executable application where the npm registry has the
 *   platform's Node 24 binary, else the same bundle as a script that needs Node on PATH, said so in
 *   the manifests' caveats. kubectl-lease_watch is a sh wrapper that runs it as lease-watch.
 * - Pinned inputs: each platform's Node version is fixed in targets.ts; downloaded binaries are
 *   cached outside the repository; archives have fixed modes, owners and mtimes.
 * - Checked before shipped: the executable for the building machine runs once (--version) before it
 *   is archived; the e2e test runs it with no Node.js on PATH and checks the manifest's sha256.
 * - Build tooling only: esbuild, postject, tar and macho-unsign are loaded only here, and nothing
 *   the program loads comes from here (whether the user is in the repository's checkout, where a
 *   hint may name an npm script, is src/util/checkout.ts).
 */
export { krewManifest, PLUGINS, type BuiltArchive, type ManifestOptions, type PluginName } from './krew.js';
export { LEASE_WATCH_WRAPPER, SCRIPT_LAUNCHER } from './launchers.js';
export { TARGETS, SCRIPT_MIN_NODE, archiveName, targetById, type Target, type TargetId } from './targets.js';
