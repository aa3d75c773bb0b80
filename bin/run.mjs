// What both plugins' files in bin/ run (kubectl finds each by its file name): the program bundled
// by npm run build (tools/packaging/bundle.ts), as `command`; the bundle's entry imports its chunks
// from beside it. The only place that exits the process.
export function run(plugin, command) {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 19)) {
    process.stderr.write(`error: ${plugin} needs Node.js >= 22.19 (this is ${process.version})\n`);
    process.exit(2);
  }
  // V8 keeps the compiled code of the bundle on disk (in the system's temporary folder) and reuses
  // it on the next run: most of the rest of the startup time (BENCHMARKS.md, "Startup"). Set
  // NODE_DISABLE_COMPILE_CACHE=1 to turn it off.
  process.getBuiltinModule('node:module').enableCompileCache?.();
  import('../dist/kubectl-informer-trace.mjs').then(
    (m) =>
      m[command](process.argv.slice(2)).then((code) => {
        process.exitCode = code;
        // Open sockets or timers must not keep a finished command alive.
        setImmediate(() => process.exit(code));
      }),
    (err) => {
      process.stderr.write(`error: cannot load ${plugin}: ${err?.message ? err.message : err}\n`);
      process.exit(1);
    },
  );
}
