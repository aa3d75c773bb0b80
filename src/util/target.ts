/**
 * A workload as kubectl names it: TYPE/NAME (deploy/web, deployments.apps/web, sts/db). The type
 * is resolved later, through discovery; here only the shape is checked.
 */
export interface Target {
  type: string;
  name: string;
}

/** `deploy/web` → {type: 'deploy', name: 'web'}; throws a plain Error naming the bad value. */
export function parseTarget(text: string): Target {
  const parts = text.trim().split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw new Error(`"${text}" is not TYPE/NAME (e.g. deploy/web, sts/db)`);
  return { type: parts[0], name: parts[1] };
}
