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
 *
 * With none of its own (the first run after an install), the tool reads kubectl's: the one every
 * client-go program that takes kubectl's flags shares, $KUBECACHEDIR or ~/.kube/cache, under
 * discovery/HOST_PORT: servergroups.json (the groups, each with its preferred version) and
 * GROUP/VERSION/serverresources.json per group version, each trusted for six hours after it was
 * written, as kubectl trusts them. It is read whole or not at all (a group version missing or
 * stale: the server is asked), never written; what was read is kept in the tool's own file,
 * with the age of kubectl's oldest file.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { realClock, type Clock } from '../clock.js';
import { fromLegacy, versionsInOrder, type LegacyGroupList, type LegacyResourceList } from './discovery-docs.js';
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

/** A kept answer and when it was fetched from the server. */
interface Kept {
  resources: ResourceInfo[];
  savedAtMs: number;
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

  /** Keeps `resources` as fetched at `savedAtMs` (now, unless they were read from elsewhere). */
  write(resources: ResourceInfo[], savedAtMs = this.clock.now()): void {
    const body: CacheFile = { format: FORMAT, server: this.server, savedAtMs, resources };
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

/**
 * kubectl's discovery cache for one API server, as client-go's disk-cached discovery client writes
 * it; read, never written.
 */
export class KubectlDiscoveryCache {
  constructor(
    readonly dir: string,
    private readonly clock: Clock = realClock,
    private readonly ttlMs: number = DISCOVERY_TTL_MS,
  ) {}

  /** Every resource its files name, core group first, in discovery order; undefined unless every file is there and young enough. */
  read(): Kept | undefined {
    let oldest = Number.POSITIVE_INFINITY;
    const doc = <T>(file: string): T | undefined => {
      const path = join(this.dir, file);
      const writtenAt = statSync(path).mtimeMs;
      if (this.clock.now() - writtenAt >= this.ttlMs) return undefined;
      oldest = Math.min(oldest, writtenAt);
      return JSON.parse(readFileSync(path, 'utf8')) as T;
    };
    try {
      const groups = doc<LegacyGroupList>('servergroups.json')?.groups;
      if (!Array.isArray(groups) || groups.length === 0) return undefined;
      const resources: ResourceInfo[] = [];
      for (const g of groups) {
        for (const version of versionsInOrder(g)) {
          const list = doc<LegacyResourceList>(join(g.name === '' ? version : `${g.name}/${version}`, 'serverresources.json'));
          if (!list || !Array.isArray(list.resources)) return undefined;
          resources.push(...fromLegacy(list, g.name, version));
        }
      }
      return { resources, savedAtMs: oldest };
    } catch {
      return undefined;
    }
  }
}

/** The tool's own kept answer, else kubectl's (kept in the tool's file from then on). */
class OwnThenKubectl implements DiscoveryStore {
  constructor(
    private readonly own: DiskDiscoveryStore,
    private readonly kubectl: KubectlDiscoveryCache,
  ) {}

  read(): ResourceInfo[] | undefined {
    const own = this.own.read();
    if (own) return own;
    const kubectl = this.kubectl.read();
    if (kubectl) this.own.write(kubectl.resources, kubectl.savedAtMs);
    return kubectl?.resources;
  }

  write(resources: ResourceInfo[]): void {
    this.own.write(resources);
  }
}

/**
 * The store for the API server at `server`: the tool's own file, then kubectl's cache; none when
 * the environment turns the cache off.
 */
export function discoveryStoreFor(server: string, env: NodeJS.ProcessEnv = process.env): DiscoveryStore | undefined {
  const file = discoveryFile(server, env);
  if (!file) return undefined;
  return new OwnThenKubectl(new DiskDiscoveryStore(file, server), new KubectlDiscoveryCache(kubectlDiscoveryDir(server, env)));
}

/** The tool's own file for the API server at `server`; none when the environment turns the cache off. */
export function discoveryFile(server: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = cacheDir(env);
  return dir ? join(dir, 'discovery', `${serverFileName(server)}.json`) : undefined;
}

/**
 * Where kubectl keeps discovery for `server`: $KUBECACHEDIR or ~/.kube/cache, then discovery/ and
 * the server's address without its scheme, every character but letters, digits, `_`, `/`, `.`,
 * `(` and `)` written as `_` (client-go's rule: `https://10.0.0.1:6443` is `10.0.0.1_6443`).
 */
export function kubectlDiscoveryDir(server: string, env: NodeJS.ProcessEnv = process.env): string {
  const root = env.KUBECACHEDIR || join(homedir(), '.kube', 'cache');
  const host = server.replace('https://', '').replace('http://', '');
  return join(root, 'discovery', host.replace(/[^\w/.()]/g, '_'));
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
