import { bundleProgram } from './bundle.js';
import { repoRoot } from '../root.js';

const root = repoRoot;

bundleProgram(root).then(
  (r) => process.stderr.write(`build: ${r.file.slice(root.length + 1)} (${(r.bytes / 1024 / 1024).toFixed(1)} MiB)\n`),
  (err: unknown) => {
    process.stderr.write(`build: error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
