import { describe, expect, it } from 'vitest';
import type { LeaseSpec } from '../kube/types.js';
import { emptyRecord, leaseSpecToRecord, rawRecord, recordToLeaseSpec } from './leader-election-record.js';
import { formatMicroTime, normalizeMicroTime, parseMicroTime, toRfc3339Seconds } from './micro-time.js';

describe('MicroTime', () => {
  it('formats clock milliseconds as RFC 3339 with six fractional digits', () => {
    expect(formatMicroTime(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00.000000Z');
    expect(formatMicroTime(Date.UTC(2026, 0, 1, 12, 30, 5, 123))).toBe('2026-01-01T12:30:05.123000Z');
    expect(formatMicroTime(Date.UTC(2026, 0, 1) + 0.25)).toBe('2026-01-01T00:00:00.000250Z');
  });

  it('parses and normalises offsets, nanoseconds and missing fractions', () => {
    expect(normalizeMicroTime('2026-01-01T02:00:00.1234567+02:00')).toBe('2026-01-01T00:00:00.123456Z');
    expect(normalizeMicroTime('2026-01-01T00:00:00Z')).toBe('2026-01-01T00:00:00.000000Z');
    expect(parseMicroTime('2026-01-01T00:00:01.500000Z')).toBe(Date.UTC(2026, 0, 1, 0, 0, 1, 500));
    expect(parseMicroTime('not a time')).toBeUndefined();
    expect(normalizeMicroTime('garbage')).toBe('garbage');
  });

  it('truncates to seconds as metav1.Time marshals', () => {
    expect(toRfc3339Seconds('2026-01-01T00:00:09.999999Z')).toBe('2026-01-01T00:00:09Z');
  });
});

describe('LeaderElectionRecord <-> LeaseSpec', () => {
  it('[TestLeaseSpecToLeaderElectionRecordRoundTrip] round-trips every field', () => {
    const spec: LeaseSpec = {
      holderIdentity: 'foo',
      leaseDurationSeconds: 10,
      acquireTime: '2026-01-01T00:00:00.123456Z',
      renewTime: '2026-01-01T00:00:05.654321Z',
      leaseTransitions: 1,
      strategy: 'OldestEmulationVersion',
      preferredHolder: 'bar',
    };
    const record = leaseSpecToRecord(spec);
    expect(record).toEqual({
      holderIdentity: 'foo',
      leaseDurationSeconds: 10,
      acquireTime: '2026-01-01T00:00:00.123456Z',
      renewTime: '2026-01-01T00:00:05.654321Z',
      leaderTransitions: 1,
      strategy: 'OldestEmulationVersion',
      preferredHolder: 'bar',
    });
    expect(recordToLeaseSpec(record)).toEqual(spec);
    expect(leaseSpecToRecord(recordToLeaseSpec(record))).toEqual(record);
  });

  it('treats missing fields as Go zero values and omits empty strategy/preferredHolder', () => {
    expect(leaseSpecToRecord(undefined)).toEqual(emptyRecord());
    expect(leaseSpecToRecord({ holderIdentity: null, leaseDurationSeconds: null })).toEqual(emptyRecord());
    const spec = recordToLeaseSpec(emptyRecord());
    expect(spec).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 0,
      acquireTime: null,
      renewTime: null,
      leaseTransitions: 0,
    });
  });
});

describe('rawRecord', () => {
  it("is Go's json.Marshal of the record: struct field order, second-precision times", () => {
    const raw = rawRecord({
      ...emptyRecord(),
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2026-01-01T00:00:00.500000Z',
      renewTime: '2026-01-01T00:00:02.250000Z',
      leaderTransitions: 3,
    });
    expect(raw).toBe(
      '{"holderIdentity":"a","leaseDurationSeconds":15,"acquireTime":"2026-01-01T00:00:00Z",' +
        '"renewTime":"2026-01-01T00:00:02Z","leaderTransitions":3,"strategy":"","preferredHolder":""}',
    );
    expect(rawRecord(emptyRecord())).toContain('"acquireTime":null,"renewTime":null');
  });

  it('does not change for a renew within the same second, and does change across seconds', () => {
    const base = { ...emptyRecord(), holderIdentity: 'a', leaseDurationSeconds: 15 };
    const at = (t: string) => rawRecord({ ...base, renewTime: t });
    expect(at('2026-01-01T00:00:02.100000Z')).toBe(at('2026-01-01T00:00:02.900000Z'));
    expect(at('2026-01-01T00:00:02.900000Z')).not.toBe(at('2026-01-01T00:00:03.000000Z'));
  });

  it('escapes <, > and & as encoding/json does', () => {
    expect(rawRecord({ ...emptyRecord(), holderIdentity: 'a<b>&c' })).toContain('"a\\u003cb\\u003e\\u0026c"');
  });
});
