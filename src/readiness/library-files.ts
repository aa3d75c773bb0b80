/**
 * The built-in library's rule files (library/<group>.yaml), by file name. In a checkout they are
 * read from src/readiness/library; the program's bundle has them written into this module
 * (tools/packaging/bundle.ts), so the package ships them as data inside its one file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the rule files are, from this module in src/, dist/ or build/src/. */
const CANDIDATES = ['./library/', '../../src/readiness/library/', '../../../src/readiness/library/'];

/** Whether a file in the folder is a rule file: its examples live beside it and are not rules. */
export function isRuleFile(name: string): boolean {
  return name.endsWith('.yaml') && !name.endsWith('.examples.yaml');
}

export function libraryFiles(): Record<string, string> {
  for (const c of CANDIDATES) {
    const dir = fileURLToPath(new URL(c, import.meta.url));
    if (!existsSync(dir)) continue;
    const files: Record<string, string> = {};
    for (const name of readdirSync(dir).filter(isRuleFile).sort()) files[name] = readFileSync(`${dir}${name}`, 'utf8');
    return files;
  }
  return {};
}
