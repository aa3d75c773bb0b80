/**
 * dist/ bundled into one ESM file with esbuild, entry bin/standalone.mjs: what the single executable
 * embeds, and what the script build ships. ESM because ink's layout engine (yoga) awaits its
 * WebAssembly at the top level, which a CommonJS bundle cannot do.
 *
 * - src/version.ts reads package.json beside dist/, which a single file does not have: the version
 *   is written in instead.
 * - react-devtools-core (ink imports it only with DEV=true) is left out: an empty module stands in.
 * - The bundle reaches Node's built-ins through a require made from process.execPath, the one module
 *   a CommonJS dependency can still require once everything else is inlined.
 */
import { build } from 'esbuild';
import { join } from 'node:path';

export interface BundleResult {
  file: string;
  bytes: number;
}

export async function bundle(root: string, outfile: string, version: string): Promise<BundleResult> {
  const result = await build({
    entryPoints: [join(root, 'bin', 'standalone.mjs')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22.19',
    minify: false,
    legalComments: 'eof',
    metafile: true,
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"' },
    banner: { js: "import { createRequire as __informerTraceCreateRequire } from 'node:module';\nconst require = __informerTraceCreateRequire(process.execPath);" },
    plugins: [
      {
        name: 'informer-trace-standalone',
        setup(b) {
          b.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'react-devtools-core', namespace: 'stub' }));
          b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'export default {};', loader: 'js' }));
          b.onLoad({ filter: /[\\/]dist[\\/]version\.js$/ }, () => ({ contents: `export const version = ${JSON.stringify(version)};`, loader: 'js' }));
        },
      },
    ],
  });
  const out = Object.entries(result.metafile.outputs).find(([name]) => name.endsWith('.mjs') || name.endsWith('.js'));
  return { file: outfile, bytes: out?.[1].bytes ?? 0 };
}
