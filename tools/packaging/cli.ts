/**
 * `npm run package`: kubectl plugin archives for every platform in targets.ts, and the krew
 * manifests over them.
 *
 *   node build/tools/packaging/cli.js [--platforms linux-amd64,…] [--out DIR] [--release-url URL] [--homepage URL]
 *
 * Steps: bundle dist/ into one ESM file; for each platform, a single executable application made
 * from that platform's Node binary (or, where none is published, the bundle with a launcher that
 * needs Node on PATH); the sh wrapper for lease-watch and the licences beside it; a .tar.gz; its
 * sha256. An executable for the machine it is built on is run once (--version) before it is
 * archived. Output under dist-package/ (or --out): the archives, SHA256SUMS, both manifests, made
 * here from the archives they describe and nowhere else (a release publishes them beside the
 * archives). The homepage and the release URL come from package.json's `homepage`.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { makeArchive, sha256File } from './archive.js';
import { bundle } from './bundle.js';
import { krewManifest, type BuiltArchive } from './krew.js';
import { LEASE_WATCH_WRAPPER, SCRIPT_LAUNCHER } from './launchers.js';
import { NotPublishedError, nodeBinary, type NodeBinary } from './node-binaries.js';
import { makeExecutable, prepareBlob } from './sea.js';
import { TARGETS, archiveName, hostNodePackage, targetById, type Target } from './targets.js';
import { repoRoot } from '../root.js';

const run = promisify(execFile);
const root = repoRoot;

interface Options {
  targets: Target[];
  out: string;
  releaseUrl: string | undefined;
  homepage: string | undefined;
}

const USAGE =
  'usage: node build/tools/packaging/cli.js [--platforms linux-amd64,linux-arm64,darwin-amd64,darwin-arm64] [--out DIR] [--release-url URL] [--homepage URL]\n';

/** The options, or undefined when --help was asked for. */
function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      platforms: { type: 'string' },
      out: { type: 'string' },
      'release-url': { type: 'string' },
      homepage: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return undefined;
  for (const name of ['platforms', 'out', 'release-url', 'homepage'] as const) {
    if (values[name] === '') throw new Error(`--${name} needs a value`);
  }
  return {
    targets: values.platforms ? values.platforms.split(',').map((s) => targetById(s.trim())) : [...TARGETS],
    out: values.out ? resolve(values.out) : join(root, 'dist-package'),
    releaseUrl: values['release-url']?.replace(/\/+$/, ''),
    homepage: values.homepage,
  };
}

const log = (line: string): void => void process.stderr.write(`package: ${line}\n`);

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** A node of exactly `version` that runs on this machine, to prepare blobs for that version. */
async function generatorFor(version: string, cache: Map<string, NodeBinary>, targetBinary: NodeBinary, target: Target): Promise<string> {
  const hostPkg = hostNodePackage();
  if (targetBinary.package === hostPkg) return targetBinary.node;
  const key = `${hostPkg}@${version}`;
  if (!cache.has(key)) {
    try {
      cache.set(key, await nodeBinary(hostPkg, version, log));
    } catch (err) {
      if (!(err instanceof NotPublishedError)) throw err;
      if (process.versions.node === version) return process.execPath;
      throw new Error(
        `the ${target.id} build needs a Node ${version} that runs here to prepare its blob, and ${hostPkg}@${version} is not published (this node is ${process.version})`,
      );
    }
  }
  return cache.get(key)!.node;
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  if (!opts) {
    process.stdout.write(USAGE);
    return;
  }
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; homepage: string };
  const version = pkg.version;
  const homepage = opts.homepage ?? pkg.homepage;
  const releaseUrl = opts.releaseUrl ?? `${homepage.replace(/\/+$/, '')}/releases/download/v${version}`;
  if (!existsSync(join(root, 'dist', 'main.js'))) throw new Error('dist/main.js is missing: run npm run build first (npm run package does)');

  const build = join(opts.out, 'build');
  rmSync(build, { recursive: true, force: true });
  mkdirSync(build, { recursive: true });
  const started = Date.now();
  const app = join(build, 'informer-trace.mjs');
  const bundled = await bundle(root, app, version);
  log(`bundled dist/ into ${relative(root, app)} (${mib(bundled.bytes)})`);

  const binaries = new Map<string, NodeBinary>();
  const blobs = new Map<string, string>();
  const built: BuiltArchive[] = [];
  for (const target of opts.targets) {
    const stage = join(build, target.id);
    mkdirSync(stage, { recursive: true });
    const files = ['kubectl-informer_trace', 'kubectl-lease_watch', 'LICENSE'];
    let kind: BuiltArchive['kind'] = 'script';
    let nodeVersion: string | null = null;
    if (target.node) {
      const { package: p, version: v } = target.node;
      const bin = binaries.get(`${p}@${v}`) ?? (await nodeBinary(p, v, log));
      binaries.set(`${p}@${v}`, bin);
      if (!blobs.has(v)) {
        const dir = join(build, `blob-${v}`);
        mkdirSync(dir, { recursive: true });
        blobs.set(v, await prepareBlob(await generatorFor(v, binaries, bin, target), dir, app));
      }
      log(`${target.id}: injecting the program into ${p}@${v}…`);
      await makeExecutable(bin.node, blobs.get(v)!, join(stage, 'kubectl-informer_trace'), target.os);
      copyFileSync(bin.license, join(stage, 'LICENSE.node'));
      files.push('LICENSE.node');
      kind = 'sea';
      nodeVersion = v;
    } else {
      writeFileSync(join(stage, 'kubectl-informer_trace'), SCRIPT_LAUNCHER);
      copyFileSync(app, join(stage, 'informer-trace.mjs'));
      files.splice(2, 0, 'informer-trace.mjs');
      log(`${target.id}: no Node.js 24 binary is published for it: the bundled script, which needs Node on PATH`);
    }
    writeFileSync(join(stage, 'kubectl-lease_watch'), LEASE_WATCH_WRAPPER);
    copyFileSync(join(root, 'LICENSE'), join(stage, 'LICENSE'));
    if (kind === 'sea' && `node-${target.os === 'darwin' ? 'darwin' : 'linux'}-${target.arch === 'amd64' ? 'x64' : 'arm64'}` === hostNodePackage()) {
      const { stdout } = await run(join(stage, 'kubectl-informer_trace'), ['--version'], { env: { PATH: '' } });
      if (stdout.trim() !== version) throw new Error(`${target.id}: the executable printed "${stdout.trim()}" for --version, not ${version}`);
      log(`${target.id}: the executable runs here (--version ${version})`);
    }
    const file = archiveName(version, target);
    const archive = join(opts.out, file);
    await makeArchive(stage, files, archive);
    const sha256 = await sha256File(archive);
    built.push({ target, file, sha256, kind, nodeVersion });
    log(
      `${target.id}: ${file} (${mib(statSync(archive).size)}, ${kind === 'sea' ? `standalone, Node ${nodeVersion}` : 'script, needs Node on PATH'}) sha256 ${sha256}`,
    );
  }

  const manifestOptions = { version, homepage, releaseUrl };
  const manifests = {
    'krew-manifest.yaml': krewManifest('informer-trace', built, manifestOptions),
    'krew-manifest-lease-watch.yaml': krewManifest('lease-watch', built, manifestOptions),
  };
  for (const [name, text] of Object.entries(manifests)) writeFileSync(join(opts.out, name), text);
  writeFileSync(join(opts.out, 'SHA256SUMS'), built.map((b) => `${b.sha256}  ${b.file}\n`).join(''));
  log(
    `done in ${Math.round((Date.now() - started) / 1000)}s: ${built.length} archive${built.length === 1 ? '' : 's'} in ${relative(process.cwd(), opts.out) || '.'}`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`package: error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
