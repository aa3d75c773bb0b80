import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { requireFolderOf } from './options.js';

const dir = mkdtempSync(join(tmpdir(), 'options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('requireFolderOf', () => {
  it('accepts a file in an existing folder, new or not', () => {
    expect(() => requireFolderOf('--svg', join(dir, 'new.svg'))).not.toThrow();
    writeFileSync(join(dir, 'old.svg'), '');
    expect(() => requireFolderOf('--svg', join(dir, 'old.svg'))).not.toThrow();
  });

  it('names the flag and the folder that is missing or is a file', () => {
    expect(() => requireFolderOf('--svg', join(dir, 'nope', 'w.svg'))).toThrow(
      new UsageError(`--svg ${join(dir, 'nope', 'w.svg')}: the folder ${join(dir, 'nope')} does not exist`),
    );
    writeFileSync(join(dir, 'file'), '');
    expect(() => requireFolderOf('--junit', join(dir, 'file', 'r.xml'))).toThrow(/^--junit .*: the folder .*file does not exist$/);
  });
});
