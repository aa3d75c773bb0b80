import { describe, expect, it } from 'vitest';
import { isAlreadyExists, isConflict } from '../kube/api-error.js';
import { FakeLeaseClient } from '../../tools/testing/fake-lease-client.js';
import { emptyRecord, type LeaderElectionRecord } from './leader-election-record.js';
import { LeaseLock } from './lease-lock.js';

const rec = (holder: string, extra: Partial<LeaderElectionRecord> = {}): LeaderElectionRecord => ({
  ...emptyRecord(),
  holderIdentity: holder,
  leaseDurationSeconds: 15,
  acquireTime: '2026-01-01T00:00:00.000000Z',
  renewTime: '2026-01-01T00:00:00.000000Z',
  ...extra,
});

describe('LeaseLock', () => {
  it('update fails before any get or create', async () => {
    const lock = new LeaseLock({ namespace: 'ns', name: 'l', identity: 'me', client: new FakeLeaseClient() });
    await expect(lock.update(rec('me'))).rejects.toThrow(/call get or create first/);
  });

  it('get resolves undefined when the Lease does not exist', async () => {
    const lock = new LeaseLock({ namespace: 'ns', name: 'l', identity: 'me', client: new FakeLeaseClient() });
    expect(await lock.get()).toBeUndefined();
  });

  it('create writes the spec and caches the object so update follows', async () => {
    const client = new FakeLeaseClient();
    const lock = new LeaseLock({ namespace: 'ns', name: 'l', identity: 'me', client, labels: { app: 'x' } });
    await lock.create(rec('me'));
    const stored = client.peek('ns', 'l')!;
    expect(stored.spec?.holderIdentity).toBe('me');
    expect(stored.metadata.labels).toEqual({ app: 'x' });
    await lock.update(rec('me', { renewTime: '2026-01-01T00:00:02.000000Z' }));
    expect(client.peek('ns', 'l')!.spec?.renewTime).toBe('2026-01-01T00:00:02.000000Z');
    expect(Number(client.peek('ns', 'l')!.metadata.resourceVersion)).toBeGreaterThan(Number(stored.metadata.resourceVersion));
  });

  it('create of an existing Lease is AlreadyExists', async () => {
    const client = new FakeLeaseClient();
    client.put({ metadata: { namespace: 'ns', name: 'l' }, spec: {} });
    const lock = new LeaseLock({ namespace: 'ns', name: 'l', identity: 'me', client });
    const err = await lock.create(rec('me')).catch((e: unknown) => e);
    expect(isAlreadyExists(err)).toBe(true);
  });

  it('get returns the record and its raw bytes, and caches for update', async () => {
    const client = new FakeLeaseClient();
    client.put({ metadata: { namespace: 'ns', name: 'l' }, spec: { holderIdentity: 'other', leaseDurationSeconds: 3 } });
    const lock = new LeaseLock({ namespace: 'ns', name: 'l', identity: 'me', client });
    const got = await lock.get();
    expect(got?.record.holderIdentity).toBe('other');
    expect(got?.record.leaseDurationSeconds).toBe(3);
    expect(got?.rawRecord).toContain('"holderIdentity":"other"');
    await lock.update(rec('me'));
    expect(client.peek('ns', 'l')!.spec?.holderIdentity).toBe('me');
    expect(client.ops()).toEqual(['get', 'update']);
  });

  it('uses the cached resourceVersion: a write by someone else in between is a conflict', async () => {
    const client = new FakeLeaseClient();
    client.put({ metadata: { namespace: 'ns', name: 'l' }, spec: { holderIdentity: 'a' } });
    const lock = new LeaseLock({ namespace: 'ns', name: 'l', identity: 'me', client });
    await lock.get();
    client.patchSpec('ns', 'l', { holderIdentity: 'b' });
    const err = await lock.update(rec('me')).catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    expect(client.peek('ns', 'l')!.spec?.holderIdentity).toBe('b');
    // A fresh get picks up the new version and the update goes through.
    await lock.get();
    await lock.update(rec('me'));
    expect(client.peek('ns', 'l')!.spec?.holderIdentity).toBe('me');
  });

  it('a failed update keeps the previous cache (next update still conflicts-checks against it)', async () => {
    const client = new FakeLeaseClient();
    client.put({ metadata: { namespace: 'ns', name: 'l' }, spec: { holderIdentity: 'a' } });
    const lock = new LeaseLock({ namespace: 'ns', name: 'l', identity: 'me', client });
    await lock.get();
    const rvBefore = lock.cached()!.metadata.resourceVersion;
    client.failNext('update');
    await expect(lock.update(rec('me'))).rejects.toThrow();
    expect(lock.cached()!.metadata.resourceVersion).toBe(rvBefore);
    expect(lock.describe()).toBe('ns/l');
    expect(lock.identity()).toBe('me');
  });
});
