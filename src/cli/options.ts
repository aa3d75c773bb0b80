/**
 * Flag values as the commands take them: a subcommand's options merged with its ancestors', and
 * the parsers of the values themselves (durations, lists, files to write), each failing with a
 * usage error that names the flag.
 *
 * Merging: connection flags may be written before the subcommand's name, as kubectl allows.
 * commander's optsWithGlobals() lets an ancestor's value win even when it is only that ancestor's
 * default, which would hide what was written after the subcommand; here the value given on the
 * command line nearest the subcommand wins, then the nearest default.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { parseDuration } from '../util/duration.js';

export function mergedOptions<T>(command: Command): T {
  const chain: Command[] = [];
  for (let c: Command | null = command; c; c = c.parent) chain.push(c);
  const out: Record<string, unknown> = {};
  const fromCli = new Set<string>();
  // Nearest first: a value from the command line is kept over anything further up.
  for (const c of chain) {
    for (const [key, value] of Object.entries(c.opts())) {
      const source = c.getOptionValueSource(key);
      const explicit = source !== undefined && source !== 'default' && source !== 'implied';
      if (fromCli.has(key)) continue;
      if (explicit) {
        out[key] = value;
        fromCli.add(key);
      } else if (!(key in out)) {
        out[key] = value;
      }
    }
  }
  return out as T;
}

/** A comma-separated flag value as its items, trimmed, the empty ones left out (`--children a, b,`). */
export function listItems(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** commander's argument parser for a repeatable flag: every occurrence, in order, as given. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** commander's argument parser for a repeatable comma-separated flag: every occurrence's items, in order. */
export function collectItems(value: string, previous: string[]): string[] {
  return [...previous, ...listItems(value)];
}

/** A duration flag's value in ms (0 when absent); a bad value is a usage error naming the flag. */
export function durationFlag(flag: string, value: string | undefined): number {
  if (value === undefined) return 0;
  try {
    return parseDuration(value);
  } catch (err) {
    throw new UsageError(`${flag}: ${(err as Error).message}`);
  }
}

/** A whole-number flag of at least `min`; anything else is a usage error naming the flag. */
export function wholeNumberFlag(flag: string, value: string, min: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`${flag} must be a whole number ≥ ${min} (got "${value}")`);
  return Number(value);
}

/** A duration flag that must be positive when given: its ms (undefined when absent). */
export function positiveDurationFlag(flag: string, value: string, example?: string): number;
export function positiveDurationFlag(flag: string, value: string | undefined, example?: string): number | undefined;
export function positiveDurationFlag(flag: string, value: string | undefined, example = '30s'): number | undefined {
  if (value === undefined) return undefined;
  const ms = durationFlag(flag, value);
  if (ms <= 0) throw new UsageError(`${flag} must be a positive duration, e.g. ${example}`);
  return ms;
}

/** --sync-timeout in ms: how long to wait for the caches to sync; 0 is the command's default. */
export function syncTimeoutFlag(value: string | undefined, defaultMs = 60_000): number {
  return durationFlag('--sync-timeout', value) || defaultMs;
}

/** -n and -A each say where to look: not both. */
export function requireOneNamespaceScope(opts: { namespace?: string | undefined; allNamespaces?: boolean | undefined }): void {
  if (opts.allNamespaces && opts.namespace) throw new UsageError('--namespace and --all-namespaces cannot be used together');
}

/** --watch -l SELECTOR: the objects to watch are given either with -f or with -l, and -l is not empty. */
export function watchSelectorFlag(selector: string, files: readonly string[]): string {
  if (files.length > 0) throw new UsageError('give the objects to watch either with -f or with -l, not both');
  if (selector.trim() === '') throw new UsageError('-l needs a label selector, e.g. -l app.kubernetes.io/instance=shop');
  return selector;
}

/** A --controller value, trimmed: a component or Lease name (kube-controller-manager), or NAMESPACE/LEASE. */
export function controllerNameFlag(text: string): string {
  const name = text.trim();
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?(\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?)?$/.test(name))
    throw new UsageError(`--controller "${text}" is not a component or Lease name`, { hint: 'e.g. --controller kube-controller-manager, or NAMESPACE/LEASE' });
  return name;
}

/**
 * A file a command is asked to write (--junit FILE, --svg FILE), checked before any request is
 * sent: a usage error unless its folder exists, so that a run is not lost to a typo in a path.
 */
export function requireFolderOf(flag: string, file: string): void {
  const dir = dirname(resolve(file));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`${flag} ${file}: the folder ${dir} does not exist`);
}
