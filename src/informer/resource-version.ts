/** The order of resourceVersions, for the informer and the cache's verification. */

/**
 * a < b: negative, a = b: 0, a > b: positive, as apimachinery's resourceversion.CompareResourceVersion
 * orders them (positive decimal integers without leading zeros, of any length); undefined when either
 * is not one. Meaningful only between resourceVersions of the same resource.
 */
export function compareResourceVersions(a: string, b: string): number | undefined {
  const valid = (rv: string): boolean => /^[1-9]\d*$/.test(rv);
  if (!valid(a) || !valid(b)) return undefined;
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The later of two resourceVersions when both are comparable, else the first one set. */
export function newerResourceVersion(a: string, b: string): string {
  const c = compareResourceVersions(a, b);
  if (c === undefined) return a || b;
  return c >= 0 ? a : b;
}
