/**
 * Discovery's answer kept on disk between runs, as kubectl keeps its own under ~/.kube/cache: a
 * one-shot command then sends its one request instead of three (the two discovery documents
 * first), and a slow or distant API server is asked for its resource types once in six hours, not
 * on every run. As kubectl does with its own, an answer is trusted for six hours
 * (DISCOVERY_TTL_MS); a name it does not know, or a kind it does not have, is looked up on the server
 * again before anything is called missing (src/kube/discovery.ts), so a definition created since
 * is found at once.
 *
 * One file per API server address (scheme, host and port) in
 * $INFORMER_TRACE_CACHE_DIR/discovery, by default $XDG_CACHE_HOME/informer-trace or
 * ~/.cache/informer-trace; INFORMER_TRACE_CACHE_DIR=off keeps nothing. It holds resource names,
 * kinds, scopes and verbs, nothing from any object. A file that cannot be read or written is no
 * error: discovery then asks the server, as it would without a cache.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { realClock, type Clock } from '../clock.js';
import type { ResourceInfo } from './types.js';

/** How long a kept answer is trusted: kubectl's discovery cache lives as long. */
export const DISCOVERY_TTL_MS = 6 * 60 * 60 * 1000;

/** The environment variable naming the cache folder (`off`: no cache). */
export const CACHE_DIR_ENV = 'INFORMER_TRACE_CACHE_DIR';

const FORMAT = 1;

/** Where discovery's answer is kept between runs, if anywhere. */
export interface DiscoveryStore {
  /** The kept answer, if one is there and young enough. */
  read(): ResourceInfo[] | undefined;
  /** Keeps `resources` for the next run. Never throws. */
  write(resources: ResourceInfo[]): void;
}

interface CacheFile {
  format: number;
  server: string;
  savedAtMs: number;
  resources: ResourceInfo[];
}

/** The answer for one API server, in one JSON file. */
export class DiskDiscoveryStore implements DiscoveryStore {
  constructor(
    readonly file: string,
    private readonly server: string,
    private readonly clock: Clock = realClock,
    private readonly ttlMs: number = DISCOVERY_TTL_MS,
  ) {}

  read(): ResourceInfo[] | undefined {
    let kept: Partial<CacheFile>;
    try {
      kept = JSON.parse(readFileSync(this.file, 'utf8')) as Partial<CacheFile>;
    } catch {
      return undefined;
    }
    const age = this.clock.now() - (kept.savedAtMs ?? Number.NEGATIVE_INFINITY);
    if (kept.format !== FORMAT || kept.server !== this.server || !Array.isArray(kept.resources)) return undefined;
    return age >= 0 && age < this.ttlMs ? kept.resources : undefined;
  }

  write(resources: ResourceInfo[]): void {
    const body: CacheFile = { format: FORMAT, server: this.server, savedAtMs: this.clock.now(), resources };
    const partial = `${this.file}.${process.pid}.tmp`;
    // Not kept when either step fails: the next run asks the server again.
    try {
      mkdirSync(join(this.file, '..'), { recursive: true, mode: 0o700 });
      writeFileSync(partial, JSON.stringify(body), { mode: 0o600 });
    } catch {
      return;
    }
    try {
      // A rename replaces the file whole: a run reading it at the same time sees the old or the new.
      renameSync(partial, this.file);
    } catch {
      rmSync(partial, { force: true });
    }
  }
}

/** The store for the API server at `server`, or none when the environment turns the cache off. */
export function discoveryStoreFor(server: string, env: NodeJS.ProcessEnv = process.env): DiscoveryStore | undefined {
  const dir = cacheDir(env);
  if (!dir) return undefined;
  return new DiskDiscoveryStore(join(dir, 'discovery', `${serverFileName(server)}.json`), server);
}

/** The cache folder: INFORMER_TRACE_CACHE_DIR, else the user's cache folder; undefined when off. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env[CACHE_DIR_ENV];
  if (chosen === 'off') return undefined;
  if (chosen) return chosen;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'informer-trace');
}

/** A file name for an API server address: `https_10.0.0.1_6443`, anything but [\w.-] as `_`. */
export function serverFileName(server: string): string {
  const url = new URL(server);
  const port = url.port || (url.protocol === 'http:' ? '80' : '443');
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol.replace(':', '')}_${url.hostname}_${port}${path}`.replace(/[^\w.-]/g, '_');
}
