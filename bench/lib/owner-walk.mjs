// The descendants of one object through ownerReferences, as kubectl-tree finds them: every object
// indexed by the uids its ownerReferences name, then walked from the root, breadth first.

/**
 * lists: [{ kind, items }] (the items of LISTs, full objects or metadata); root: { kind, name }.
 * Returns the descendants as sorted "Kind/name", and how many objects were indexed.
 */
export function descendantsOf(lists, root) {
  const byOwner = new Map();
  let start;
  let objects = 0;
  for (const { kind, items } of lists) {
    for (const o of items) {
      objects++;
      const node = { kind, name: o.metadata.name, uid: o.metadata.uid };
      if (kind === root.kind && node.name === root.name) start = node;
      for (const ref of o.metadata.ownerReferences ?? []) {
        const children = byOwner.get(ref.uid);
        if (children) children.push(node);
        else byOwner.set(ref.uid, [node]);
      }
    }
  }
  if (!start) throw new Error(`${root.kind}/${root.name} is in none of the lists`);
  const found = [];
  const seen = new Set([start.uid]);
  for (let queue = [start]; queue.length; ) {
    const next = [];
    for (const n of queue) {
      for (const c of byOwner.get(n.uid) ?? []) {
        if (seen.has(c.uid)) continue;
        seen.add(c.uid);
        found.push(`${c.kind}/${c.name}`);
        next.push(c);
      }
    }
    queue = next;
  }
  return { descendants: found.sort(), objects };
}
