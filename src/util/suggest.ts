/** Close names for "did you mean" hints: Levenshtein distance, nearest first. */
export function closest(input: string, candidates: string[], max = 3): string[] {
  const limit = Math.max(2, Math.floor(input.length / 3));
  return candidates
    .map((c) => ({ c, d: distance(input, c) + (c.startsWith(input) || input.startsWith(c) ? -1 : 0) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
    .slice(0, max)
    .map((x) => x.c);
}

export function distance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
