// The entry of the standalone builds (npm run package): one program, run as kubectl informer-trace,
// or as kubectl lease-watch when the kubectl-lease_watch wrapper says so (or it is called by that
// name). Like the other files in bin/, the only place that exits the process.
import { basename } from 'node:path';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`error: kubectl informer-trace needs Node.js >= 22.19 (this is ${process.version})\n`);
  process.exit(2);
}
const asLeaseWatch = process.env.INFORMER_TRACE_PROGRAM === 'lease-watch' || /^kubectl-lease[_-]watch$/.test(basename(process.argv0 || ''));
delete process.env.INFORMER_TRACE_PROGRAM;
import('../dist/main.js').then(
  (m) =>
    (asLeaseWatch ? m.leaseWatch : m.informerTrace)(process.argv.slice(2)).then((code) => {
      process.exitCode = code;
      // Open sockets or timers must not keep a finished command alive.
      setImmediate(() => process.exit(code));
    }),
  (err) => {
    process.stderr.write(`error: cannot load kubectl informer-trace: ${err?.message ? err.message : err}\n`);
    process.exit(1);
  },
);
