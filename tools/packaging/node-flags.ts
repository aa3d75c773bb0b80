/**
 * The Node.js flags the plugin runs with, wherever it is installed: the standalone executables
 * (the SEA configuration's execArgv), the script launcher, and the npm package's bin files (which
 * exec node with them; a test keeps those in step with this list).
 *
 * --max-semi-space-size=2: V8 sizes the young generation from the heap limit, which on a machine
 * with a few GiB of memory lets it grow to 2 × 64 MiB while an informer fills its cache. Nearly
 * everything a list or a watch decodes survives into the cache, so a large young generation buys
 * nothing: each scavenge only copies more live objects, and the pages stay resident. At 2 MiB the
 * peak RSS of an initial sync of 10,000 Pods is ~97 MiB (~135 at 16 MiB),
 * in the same time or less. The cost is in the terminal UIs, whose short-lived objects (React's,
 * ink's) are scavenged and promoted sooner: a trace frame of a 1,000-replica rollout takes a few
 * per cent more CPU at the median and a fifth more at p99, still far inside its 50 ms, and the
 * `cache` view's frame at 250x70 about twice as long (~10 ms). The contract: an initial sync of
 * 10,000 Pods under half of client-go's peak RSS, while every TUI frame target (≤ 50 ms) still
 * holds (BENCHMARKS.md, sections 1c, 6 and 8).
 */
export const PLUGIN_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2'];

/**
 * The environment the launchers that are shell scripts (the npm package's bin files, the script
 * launcher) give node, each variable only where the user has not set it. A standalone executable
 * cannot: glibc reads these when the process starts, before any of its code runs.
 *
 * MALLOC_ARENA_MAX=2: glibc gives each thread that allocates (V8's four platform workers, libuv's
 * pool) an arena of its own, up to eight per core, and keeps what is freed in each as free space
 * of that arena. In a probe that runs for days their free space then grew ~2 MiB an hour while
 * their use stayed flat; with two, side by side under the same churn and faults, they stay flat
 * (BENCHMARKS.md, section 11). A variable, not a flag: the plugin's exec credential plugins inherit
 * it, to which it is only a tuning of the same allocator.
 */
export const PLUGIN_NODE_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };
