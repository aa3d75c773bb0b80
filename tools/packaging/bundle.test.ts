import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { runInThisContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { CHUNKS, asciiOnly, bundleEntry, bundleSplit, externalPackages, generatedApiInputs } from './bundle.js';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'informer-trace-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: { server: 'https://127.0.0.1:6443', insecure-skip-tls-verify: true }
users:
- name: u
  user: { token: abc }
contexts:
- name: x
  context: { cluster: c, user: u, namespace: demo }
current-context: x
`;

describe('the bundle', () => {
  it("holds client-node's KubeConfig without its generated API, and that KubeConfig still reads a kubeconfig and applies its credentials", async () => {
    const entry = join(dir, 'entry.mjs');
    writeFileSync(entry, `export { KubeConfig } from ${JSON.stringify(join(root, 'node_modules', '@kubernetes', 'client-node', 'dist', 'config.js'))};\n`);
    const out = join(dir, 'kubeconfig.mjs');
    const result = await bundleEntry(entry, out, '1.2.3');
    // The generated API alone is over 15 MB of source; KubeConfig with its auth plugins is well under 1 MB.
    expect(result.bytes).toBeGreaterThan(100 * 1024);
    expect(result.bytes).toBeLessThan(1024 * 1024);
    expect(readFileSync(out, 'utf8')).not.toContain('class CoreV1Api');

    // Run in a Node of its own: the bundle must need nothing but Node's built-ins.
    const script = `
      const { KubeConfig } = await import(${JSON.stringify(pathToFileURL(out).href)});
      const kc = new KubeConfig();
      kc.loadFromString(${JSON.stringify(KUBECONFIG)});
      const opts = {};
      await kc.applyToHTTPSOptions(opts);
      let fetchClient = 'built';
      try { await kc.applySecurityAuthentication({ setHeaderParam() {}, setDispatcher() {} }); } catch (e) { fetchClient = e.message; }
      process.stdout.write(JSON.stringify({ ns: kc.getContextObject('x').namespace, auth: opts.headers.Authorization, reject: opts.rejectUnauthorized, agent: opts.agent?.constructor?.name, fetchClient }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
    // The fetch-based clients' undici is left out, and says so.
    expect(JSON.parse(stdout)).toEqual({
      ns: 'demo',
      auth: 'Bearer abc',
      reject: false,
      agent: 'Agent',
      fetchClient: 'the fetch-based Kubernetes API clients are not part of kubectl informer-trace',
    });
  });

  it('is ASCII only, and means what its sources mean: strings, templates and regular expressions with other characters', async () => {
    const entry = join(dir, 'unicode.mjs');
    writeFileSync(
      entry,
      [
        '// a comment with \u2192 and \u00b5',
        'const d = /(\\d+)(ns|\u00b5s|ms)/.exec("12\u00b5s");',
        'const u = /^[\u{1F600}\u00e9]$/u.test("\u{1F600}");',
        'const t = `\u2192` + d[2] + `\u2190`;',
        'process.stdout.write(JSON.stringify({ d: d[2], u, t, s: "\u00e9\u{1F600}", r: /\\\u00e9/.test("\u00e9") }));',
        '',
      ].join('\n'),
    );
    const out = join(dir, 'unicode.bundle.mjs');
    await bundleEntry(entry, out, '1.2.3');
    expect(readFileSync(out).every((b) => b < 0x80)).toBe(true);
    const [source, bundled] = await Promise.all([run(process.execPath, [entry]), run(process.execPath, [out])]);
    expect(JSON.parse(bundled.stdout)).toEqual(JSON.parse(source.stdout));
    expect(JSON.parse(bundled.stdout)).toEqual({ d: '\u00b5s', u: true, t: '\u2192\u00b5s\u2190', s: '\u00e9\u{1F600}', r: true });
  });

  it("split: the entry, and what it imports lazily in chunks beside it, each with the bundle's require and ASCII only, mean what the sources mean; an earlier build's chunks go", async () => {
    const src = join(dir, 'split-src');
    mkdirSync(src);
    writeFileSync(join(src, 'lazy.cjs'), "module.exports = { sep: require('node:path').sep, arrow: '\u2192' };\n");
    const entry = join(src, 'entry.mjs');
    writeFileSync(entry, "export async function run() { const lazy = await import('./lazy.cjs'); return { ...lazy.default, here: '\u00b5' }; }\n");
    const out = join(dir, 'split', 'program.mjs');
    mkdirSync(join(dir, 'split', CHUNKS), { recursive: true });
    writeFileSync(join(dir, 'split', CHUNKS, 'stale-ABCDEFGH.mjs'), 'throw new Error("stale");\n');

    const result = await bundleSplit(entry, out, '1.2.3');
    expect(result.file).toBe(out);
    expect(result.chunks.length).toBeGreaterThan(0);
    expect(readdirSync(join(dir, 'split', CHUNKS)).sort()).toEqual(result.chunks.map((c) => basename(c.file)).sort());
    for (const { file, bytes } of [result, ...result.chunks]) {
      const text = readFileSync(file);
      expect(text.length).toBe(bytes);
      expect(
        text.every((b) => b < 0x80),
        file,
      ).toBe(true);
      expect(text.toString().startsWith("import { createRequire as __informerTraceCreateRequire } from 'node:module';"), file).toBe(true);
    }
    const script = (m: string) => `const { run } = await import(${JSON.stringify(pathToFileURL(m).href)}); process.stdout.write(JSON.stringify(await run()));`;
    const [source, bundled] = await Promise.all([entry, out].map((m) => run(process.execPath, ['--input-type=module', '-e', script(m)], { cwd: dir })));
    expect(JSON.parse(bundled!.stdout)).toEqual(JSON.parse(source!.stdout));
    expect(JSON.parse(bundled!.stdout)).toEqual({ sep: '/', arrow: '\u2192', here: '\u00b5' });
  });

  it('writes an identity escape of a character outside ASCII as its \\u escape, and keeps an escaped backslash before one', () => {
    expect(asciiOnly('/\\\u2192/')).toBe('/\\u2192/');
    expect(asciiOnly('"\\\\\u2192"')).toBe('"\\\\\\u2192"');
    expect(asciiOnly('"\u{1F600}"')).toBe('"\\ud83d\\ude00"');
    for (const code of ['/\\\u2192/.test("\u2192")', '"\\\\\u2192"', '/[\u{1F600}]/u.test("\u{1F600}")', '/\\\u00e9/.test("\u00e9")']) {
      expect(runInThisContext(asciiOnly(code))).toEqual(runInThisContext(code));
    }
  });

  it("finds what a metafile leaves to load at run time besides Node's built-ins and debug's optional supports-color", () => {
    const imports = ['node:fs', 'fs', 'node:fs/promises', 'supports-color', 'yaml', '@bufbuild/cel', 'yaml'].map((path) => ({
      path,
      kind: 'import-statement' as const,
      external: true,
    }));
    const bundled = { path: 'node_modules/ink/build/index.js', kind: 'import-statement' as const };
    expect(externalPackages({ inputs: {}, outputs: { 'out.mjs': { bytes: 1, inputs: {}, imports: [...imports, bundled], exports: [] } } })).toEqual([
      '@bufbuild/cel',
      'yaml',
    ]);
  });

  it('finds inputs from the generated API in a metafile', () => {
    const input = { bytes: 1, imports: [] };
    expect(
      generatedApiInputs({
        inputs: {
          'node_modules/@kubernetes/client-node/dist/config.js': input,
          'node_modules/@kubernetes/client-node/dist/gen/configuration.js': input,
          'node_modules/@kubernetes/client-node/dist/gen/models/V1Pod.js': input,
          'node_modules/@kubernetes/client-node/dist/gen/apis/CoreV1Api.js': input,
        },
        outputs: {},
      }),
    ).toEqual(['node_modules/@kubernetes/client-node/dist/gen/models/V1Pod.js', 'node_modules/@kubernetes/client-node/dist/gen/apis/CoreV1Api.js']);
  });
});
