/**
 * The Node.js flags the plugin runs with, wherever it is installed: the standalone executables
 * (the SEA configuration's execArgv), the script launcher, and the npm package's bin files (which
 * exec node with them; a test keeps those in step with this list).
 *
 * --max-semi-space-size=16: V8 sizes the young generation from the heap limit, which on a machine
 * with a few GiB of memory lets it grow to 2 × 64 MiB while an informer fills its cache. Nearly
 * everything a list or a watch decodes survives into the cache, so a large young generation buys
 * nothing: each scavenge only copies more live objects. Capped at 16 MiB, the peak RSS of an
 * initial sync of 10,000 Pods fell from ~330 to ~210 MiB and the replay of a recorded watch stream
 * got faster, not slower (BENCHMARKS.md, "Where the time and the memory go").
 * A smaller young generation lowers a sync's peak further (2 MiB: ~115 MiB at 10,000 Pods) but
 * makes every frame of the trace's terminal UI cost more CPU (~50 % at 2 MiB), and at 4 MiB the
 * frame time p99 of a 1,000-replica rollout went past 50 ms (BENCHMARKS.md, section 1c, ninth round).
 */
export const PLUGIN_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];
