/**
 * A subcommand's options merged with its ancestors' (connection flags may be written before the
 * subcommand's name, as kubectl allows). commander's optsWithGlobals() lets an ancestor's value win
 * even when it is only that ancestor's default, which would hide what was written after the
 * subcommand; here the value given on the command line nearest the subcommand wins, then the
 * nearest default.
 */
import type { Command } from 'commander';

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

/** commander's argument parser for a repeatable comma-separated flag: every occurrence's items, in order. */
export function collectItems(value: string, previous: string[]): string[] {
  return [...previous, ...listItems(value)];
}
