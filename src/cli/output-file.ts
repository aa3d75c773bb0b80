/** Files a command is asked to write (--junit FILE, --svg FILE): checked before any request is sent. */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';

/** A usage error unless FILE's folder exists, so that a run is not lost to a typo in a path. */
export function requireFolderOf(flag: string, file: string): void {
  const dir = dirname(resolve(file));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`${flag} ${file}: the folder ${dir} does not exist`);
}
