import { UsageError } from '../errors.js';
import { parseDuration } from '../util/duration.js';

/** A duration flag's value in ms (0 when absent); a bad value is a usage error naming the flag. */
export function durationFlag(flag: string, value: string | undefined): number {
  if (value === undefined) return 0;
  try {
    return parseDuration(value);
  } catch (err) {
    throw new UsageError(`${flag}: ${(err as Error).message}`);
  }
}
