/**
 * dist/ bundled into ESM with esbuild. Two bundles are made from it:
 *
 * - dist/kubectl-informer-trace.mjs (`npm run build`, bundleProgram): what bin/ runs. Startup time
 *   of a one-shot command is mostly module loading, and a bundle loads far faster than hundreds of
 *   modules (BENCHMARKS.md, "Startup"). It is split at each `await import()`, so a start reads and
 *   parses the plugin's program, not what it loads on demand: the entry is src/main.ts alone; each
 *   plugin's program and what it loads only when asked (the TUI with ink, react-reconciler and
 *   yoga; the CEL evaluator; the OTLP exporter; the metrics and probe code) is a chunk under
 *   dist/chunks/, and code two of them share a chunk of its own, all imported relatively.
 *   `cache deploy` reads 1.4 MB in 29 files instead of 2.9 MB in one: 7.5% less time (CPU 4.5%)
 *   with the compile cache, 12% (CPU 11%) without, 2 MiB less resident (6 MiB without); `--help`
 *   and `--version` alike (medians of 64 alternating pairs, load average 2.6–5.6).
 * - informer-trace.mjs of the archives (`npm run package`, bundle): entry bin/standalone.mjs, what
 *   the single executable embeds (one asset) and what the script build ships: one file, whose
 *   `await import()`s esbuild turns into modules evaluated on first use.
 *
 * ESM because ink's layout engine (yoga) awaits its WebAssembly at the top level, which a CommonJS
 * bundle cannot do. Every file of either bundle is made the same way:
 *
 * - src/version.ts reads package.json beside dist/, which a single file does not have: the version
 *   is written in instead. So are the readiness library's rule files (src/readiness/library/*.yaml),
 *   which src/readiness/library-files.ts reads from the checkout.
 * - react-devtools-core (ink imports it only with DEV=true) is left out: an empty module stands in.
 * - @kubernetes/client-node: only KubeConfig is used (src/kube/config.ts imports its module
 *   directly), but that module imports the generated API clients with their models (megabytes of
 *   code, most of the startup time and ~80 MiB) for makeApiClient, and undici for the fetch-based
 *   generated clients. Neither is used here: the generated API's index is replaced by the two small
 *   modules makeApiClient needs, and undici by classes that throw. The proxy agents (socks) are
 *   loaded when a kubeconfig names a proxy, not at startup. The build fails if the generated API
 *   is bundled all the same (a new client-node that imports it elsewhere).
 * - The bundle reaches Node's built-ins through a require made from process.execPath, the one module
 *   a CommonJS dependency can still require once everything else is inlined.
 * - Every package the program uses is inlined, the ones behind `await import()` too (the TUI, the
 *   OTLP exporter, the CEL evaluator): the build fails if anything but Node's built-ins is left to
 *   load at run time. So the npm package has no dependencies (all are devDependencies) and ships
 *   bin/, the program's entry and its chunks (package.json `files`).
 * - Whitespace, comments and syntax are minified, names are not (stack traces keep them): a third
 *   less to read, decode and parse on every start, and a smaller source string kept in memory.
 * - Only ASCII: the few other characters esbuild leaves (in regular expressions) are written as
 *   \u escapes. One non-ASCII byte makes Node decode the whole file the slow way and V8 keep it
 *   as a two-byte string, 4 MiB more resident (BENCHMARKS.md, "Startup").
 */
import { type BuildOptions, type BuildResult, build, type Metafile, type Plugin } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { isRuleFile, libraryFiles } from '../../src/readiness/library-files.js';

export interface BundleResult {
  file: string;
  bytes: number;
}

export interface SplitBundleResult extends BundleResult {
  /** The chunks, written under CHUNKS beside the entry. */
  chunks: BundleResult[];
}

/** The file bin/ runs, relative to the package root. */
export const PROGRAM_BUNDLE = join('dist', 'kubectl-informer-trace.mjs');

/** The folder of the program bundle's chunks, beside it. */
export const CHUNKS = 'chunks';

/** Required inside a try by a bundled package, which goes on without it. */
const OPTIONAL_EXTERNALS = new Set(['supports-color']);

const CLIENT_NODE = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]/;

function plugin(version: string): Plugin {
  return {
    name: 'informer-trace-bundle',
    setup(b) {
      b.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'react-devtools-core', namespace: 'stub' }));
      b.onLoad({ filter: /^react-devtools-core$/, namespace: 'stub' }, () => ({ contents: 'export default {};', loader: 'js' }));
      b.onLoad({ filter: /[\\/]dist[\\/]version\.js$/ }, () => ({ contents: `export const version = ${JSON.stringify(version)};`, loader: 'js' }));
      b.onLoad({ filter: /[\\/]dist[\\/]readiness[\\/]library-files\.js$/ }, () => ({
        contents: `export const isRuleFile = ${isRuleFile.toString()};\nconst FILES = ${JSON.stringify(libraryFiles())};\nexport function libraryFiles() { return FILES; }\n`,
        loader: 'js',
      }));

      b.onResolve({ filter: /^\.\/gen\/index\.js$/ }, (a) =>
        /[\\/]client-node[\\/]dist[\\/]config\.js$/.test(a.importer) ? { path: 'client-node-gen', namespace: 'stub', pluginData: a.resolveDir } : undefined,
      );
      b.onLoad({ filter: /^client-node-gen$/, namespace: 'stub' }, (a) => ({
        contents: "export { createConfiguration } from './gen/configuration.js';\nexport { ServerConfiguration } from './gen/servers.js';\n",
        resolveDir: a.pluginData as string,
        loader: 'js',
      }));
      b.onResolve({ filter: /^undici$/ }, (a) => (CLIENT_NODE.test(a.importer) ? { path: 'undici', namespace: 'stub' } : undefined));
      b.onLoad({ filter: /^undici$/, namespace: 'stub' }, () => ({
        contents: [
          "const missing = () => { throw new Error('the fetch-based Kubernetes API clients are not part of kubectl informer-trace'); };",
          'export class Agent { constructor() { missing(); } }',
          'export class ProxyAgent { constructor() { missing(); } }',
          'export const fetch = missing;',
        ].join('\n'),
        loader: 'js',
      }));
      // node:http through require, not an ESM import: the ESM view of node:http reads every export,
      // and its WebSocket / EventSource getters load Node's own copy of undici (~20 ms).
      b.onResolve({ filter: /^(node:)?http$/ }, (a) => (a.kind === 'import-statement' ? { path: 'node:http', namespace: 'builtin-require' } : undefined));
      b.onLoad({ filter: /^node:http$/, namespace: 'builtin-require' }, () => ({ contents: "module.exports = require('node:http');\n", loader: 'js' }));
      // CommonJS modules required inside a function are evaluated on first call.
      b.onResolve({ filter: /^(socks|socks-proxy-agent)$/ }, (a) =>
        CLIENT_NODE.test(a.importer) && a.kind === 'import-statement' ? { path: a.path, namespace: 'lazy', pluginData: a.resolveDir } : undefined,
      );
      b.onLoad({ filter: /^socks-proxy-agent$/, namespace: 'lazy' }, (a) => ({
        contents:
          "export class SocksProxyAgent { constructor(...args) { const { SocksProxyAgent: Agent } = require('socks-proxy-agent'); return new Agent(...args); } }\n",
        resolveDir: a.pluginData as string,
        loader: 'js',
      }));
      b.onLoad({ filter: /^socks$/, namespace: 'lazy' }, (a) => ({
        contents: "export const SocksClient = { createConnection: (...args) => require('socks').SocksClient.createConnection(...args) };\n",
        resolveDir: a.pluginData as string,
        loader: 'js',
      }));
    },
  };
}

/** Outputs kept in memory to be checked before they are written, and described. */
type InMemory = { write: false; metafile: true };

/** What both bundles are built with: ESM for Node, minified but for names, the substitutions above. */
function options(version: string): BuildOptions & InMemory {
  return {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22.19',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'eof',
    write: false,
    metafile: true,
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"' },
    banner: {
      js: "import { createRequire as __informerTraceCreateRequire } from 'node:module';\nconst require = __informerTraceCreateRequire(process.execPath);",
    },
    plugins: [plugin(version)],
  };
}

/** Every file of `result`, checked (no generated API, nothing to load from outside) and written ASCII only. */
function writeChecked(result: BuildResult<InMemory>, entry: string): BundleResult[] {
  const generated = generatedApiInputs(result.metafile);
  if (generated.length > 0) {
    throw new Error(
      `the bundle holds client-node's generated API (${generated.slice(0, 3).join(', ')}${generated.length > 3 ? ', …' : ''}): something other than KubeConfig's module imports it`,
    );
  }
  const external = externalPackages(result.metafile);
  if (external.length > 0) {
    throw new Error(
      `the bundle would load ${external.join(', ')} from outside itself: the npm package has no dependencies to provide ${external.length > 1 ? 'them' : 'it'}`,
    );
  }
  if (result.outputFiles.length === 0) throw new Error(`esbuild wrote nothing for ${entry}`);
  return result.outputFiles.map((f) => {
    const text = asciiOnly(f.text);
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, text);
    return { file: f.path, bytes: Buffer.byteLength(text) };
  });
}

/** `entry` and everything it imports as one ESM file, with the substitutions above. */
export async function bundleEntry(entry: string, outfile: string, version: string): Promise<BundleResult> {
  const result = await build({ ...options(version), entryPoints: [entry], outfile });
  const [file] = writeChecked(result, entry);
  return { file: outfile, bytes: file!.bytes };
}

/**
 * `entry` as `outfile`, split at each `await import()` into chunks under CHUNKS beside it, which
 * import each other relatively. The folder is emptied first: no chunk of an earlier build stays
 * to be shipped.
 */
export async function bundleSplit(entry: string, outfile: string, version: string): Promise<SplitBundleResult> {
  const dir = dirname(outfile);
  rmSync(join(dir, CHUNKS), { recursive: true, force: true });
  const result = await build({
    ...options(version),
    entryPoints: [{ in: entry, out: basename(outfile, extname(outfile)) }],
    outdir: dir,
    outExtension: { '.js': extname(outfile) },
    splitting: true,
    chunkNames: `${CHUNKS}/[name]-[hash]`,
  });
  const files = writeChecked(result, entry);
  const main = files.find((f) => f.file === resolve(outfile));
  if (!main) throw new Error(`esbuild wrote no ${outfile} for ${entry}`);
  return { ...main, chunks: files.filter((f) => f !== main) };
}

/**
 * `code` with every character outside ASCII written as a \uXXXX escape of its UTF-16 code units,
 * which means the same character in a string, a template, a regular expression (with or without
 * the u flag) and a comment. An identity escape of such a character (a backslash before it) is the
 * character itself, so the backslash goes. Not for an identifier outside the Basic Multilingual
 * Plane, which no bundled package has: the program would then fail to load, as the tests would see.
 */
export function asciiOnly(code: string): string {
  return code.replace(/(\\*)([^\x00-\x7f])/g, (_, slashes: string, c: string) => {
    const kept = slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
    return `${kept}\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** Inputs from client-node's generated API clients and models. */
export function generatedApiInputs(metafile: Metafile): string[] {
  return Object.keys(metafile.inputs).filter((f) => /client-node[\\/]dist[\\/]gen[\\/](apis|models|types)[\\/]/.test(f));
}

/**
 * What the bundle leaves to be loaded at run time besides Node's built-ins: packages that would have
 * to be installed beside it. debug's optional `require('supports-color')` (in a try, for more
 * colours) is not one: without it debug uses its own.
 */
export function externalPackages(metafile: Metafile): string[] {
  const found = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const i of output.imports) {
      if (i.external && !isBuiltin(i.path) && !OPTIONAL_EXTERNALS.has(i.path)) found.add(i.path);
    }
  }
  return [...found].sort();
}

/** The standalone program (entry bin/standalone.mjs), for the archives. */
export function bundle(root: string, outfile: string, version: string): Promise<BundleResult> {
  return bundleEntry(join(root, 'bin', 'standalone.mjs'), outfile, version);
}

/** dist/main.js as PROGRAM_BUNDLE, the file bin/ runs; the version from package.json. */
export function bundleProgram(root: string): Promise<SplitBundleResult> {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return bundleSplit(join(root, 'dist', 'main.js'), join(root, PROGRAM_BUNDLE), version);
}
