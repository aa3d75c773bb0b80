/**
 * Files a check run leaves for CI (`check --artifacts DIR`): one waterfall SVG per rollout check,
 * named after the check (`rollout deploy/web in demo` → `rollout-deploy-web-in-demo.svg`). The
 * folder is made, or found to be usable, before any request; a file of a previous run with the same
 * name is replaced; two checks whose names make the same file name get `-2`, `-3`.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { SVG_MAX_LANES, waterfallSvg } from './svg.js';
import type { TraceSnapshot } from '../trace/index.js';
import { buildWaterfallView } from '../view/waterfall-view.js';

/** A file name from a check's name: lower case letters, digits, dots and dashes. */
export function artifactBaseName(checkName: string): string {
  const slug = checkName
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 100)
    .replace(/[-.]+$/, '');
  return slug || 'check';
}

export class ArtifactsDir {
  private readonly used = new Set<string>();

  private constructor(readonly dir: string) {}

  /** Makes the folder (and its parents) if need be; a usage error when it cannot be one. */
  static prepare(dir: string, flag = '--artifacts'): ArtifactsDir {
    const path = resolve(dir);
    if (existsSync(path) && !statSync(path).isDirectory()) throw new UsageError(`${flag} ${dir}: not a folder`);
    try {
      mkdirSync(path, { recursive: true });
    } catch (err) {
      throw new UsageError(`${flag} ${dir}: cannot make the folder (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    if (!statSync(path).isDirectory()) throw new UsageError(`${flag} ${dir}: not a folder`);
    return new ArtifactsDir(path);
  }

  /** Writes one file for a check; returns its path. */
  write(checkName: string, ext: string, content: string): string {
    const base = artifactBaseName(checkName);
    let name = `${base}.${ext}`;
    for (let n = 2; this.used.has(name); n++) name = `${base}-${n}.${ext}`;
    this.used.add(name);
    const file = join(this.dir, name);
    writeFileSync(file, content);
    return file;
  }

  /** The trace's waterfall as an SVG named after the check. */
  writeWaterfall(checkName: string, snapshot: TraceSnapshot): string {
    return this.write(checkName, 'svg', waterfallSvg(buildWaterfallView(snapshot, { maxLanes: SVG_MAX_LANES })));
  }
}
