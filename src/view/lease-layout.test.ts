import { expect, describe, it } from 'vitest';
import { layoutLeaseColumns } from './lease-layout.js';

const A = 'control-plane-host_1b4e28ba-2fa1-11d2-883f-0016d3cca427';

describe('lease table layout', () => {
  const row = { namespace: 'kube-system', name: 'kube-controller-manager', holder: A, strategy: null, preferredHolder: null, masterStatus: null };
  it('fits the width, giving the long holder what the lease column does not need', () => {
    const cols = layoutLeaseColumns({ leases: [row as never] }, 100);
    const total = cols.reduce((n, c) => n + c.width + 1, 0);
    expect(total).toBeLessThanOrEqual(100);
    expect(cols[0]).toMatchObject({ key: 'lease', width: 'kube-system/kube-controller-manager'.length });
    expect(cols.map((c) => c.key)).toEqual(['lease', 'holder', 'state', 'renewed', 'acquired', 'transitions', 'held']);
  });
  it('below 100 columns drops ACQUIRED and HELD so that the lease name stays whole', () => {
    const cols = layoutLeaseColumns({ leases: [row as never] }, 80);
    expect(cols.map((c) => c.key)).toEqual(['lease', 'holder', 'state', 'renewed', 'transitions']);
    expect(cols[0]).toMatchObject({ key: 'lease', width: 'kube-system/kube-controller-manager'.length });
    expect(cols.reduce((n, c) => n + c.width + 1, 0)).toBeLessThanOrEqual(80);
  });
  it('adds strategy and master columns only when some lease has them', () => {
    const cols = layoutLeaseColumns({ leases: [{ ...row, strategy: 'OldestEmulationVersion', masterStatus: [] } as never] }, 140);
    expect(cols.map((c) => c.key)).toContain('strategy');
    expect(cols.map((c) => c.key)).toContain('master');
  });
});
