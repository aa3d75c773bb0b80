/**
 * The small files beside the program in each archive.
 *
 * kubectl-lease_watch runs the kubectl-informer_trace beside it as lease-watch: one runtime per
 * archive rather than two copies of Node. It follows symlinks to find that file (krew links
 * ~/.krew/bin/kubectl-lease_watch into its store), with readlink only, which macOS has too.
 *
 * Where no standalone build can be made, kubectl-informer_trace is a launcher for the bundled
 * informer-trace.mjs that needs Node on PATH. It is written in the syntax common to CommonJS and
 * ESM (no require, no import declarations) so it runs whatever a package.json above it says, and
 * it says clearly when the Node it found is too old. It is also a shell script: its second line,
 * a comment to JavaScript, makes sh exec node with the plugin's Node flags on the same file.
 */
import { PLUGIN_NODE_ENV, PLUGIN_NODE_FLAGS } from './node-flags.js';
import { SCRIPT_MIN_NODE } from './targets.js';

export const LEASE_WATCH_WRAPPER = `#!/bin/sh
# kubectl lease-watch: the kubectl-informer_trace beside this file, run as lease-watch.
self=$0
while [ -L "$self" ]; do
  link=$(readlink "$self")
  case $link in
    /*) self=$link ;;
    *) case $self in */*) self=\${self%/*}/$link ;; *) self=$link ;; esac ;;
  esac
done
case $self in */*) dir=\${self%/*} ;; *) dir=. ;; esac
INFORMER_TRACE_PROGRAM=lease-watch exec "$dir/kubectl-informer_trace" "$@"
`;

const [MIN_MAJOR, MIN_MINOR] = SCRIPT_MIN_NODE.split('.').map(Number) as [number, number];

export const SCRIPT_LAUNCHER = `#!/bin/sh
${execNodeLine('kubectl informer-trace', SCRIPT_MIN_NODE)}
// kubectl informer-trace for a platform without a standalone build: runs informer-trace.mjs beside
// this file with the Node.js on PATH, which must be ${SCRIPT_MIN_NODE} or newer.
const v = process.versions.node.split('.').map(Number);
if (v[0] < ${MIN_MAJOR} || (v[0] === ${MIN_MAJOR} && v[1] < ${MIN_MINOR})) {
  process.stderr.write('error: kubectl informer-trace needs Node.js >= ${SCRIPT_MIN_NODE} on PATH (found ' + process.version + '); on this platform it is a script, not a standalone executable\\n');
  process.exit(2);
}
const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');
const url = process.getBuiltinModule('node:url');
const here = path.dirname(fs.realpathSync(process.argv[1]));
// V8 keeps the bundle's compiled code in the system's temporary folder for the next run.
process.getBuiltinModule('node:module').enableCompileCache?.();
import(url.pathToFileURL(path.join(here, 'informer-trace.mjs')).href).catch((err) => {
  process.stderr.write('error: cannot start: ' + (err && err.message ? err.message : String(err)) + '\\n');
  process.exit(1);
});
`;

/**
 * The line that makes a file both a shell script and JavaScript: to sh, a no-op (`':'`) followed
 * by a check that node is on PATH, the plugin's environment (each variable kept where already set)
 * and an exec of node with the plugin's flags on this very file; to JavaScript, a string
 * expression and a comment.
 */
export function execNodeLine(what: string, minNode: string): string {
  const env = Object.entries(PLUGIN_NODE_ENV)
    .map(([k, v]) => `export ${k}="\${${k}:-${v}}"; `)
    .join('');
  return `':' //; command -v node >/dev/null 2>&1 || { echo 'error: ${what} needs Node.js >= ${minNode} on PATH' >&2; exit 2; }; ${env}exec node ${PLUGIN_NODE_FLAGS.join(' ')} "$0" "$@"`;
}
