/**
 * Coordinated leader election (KEP-4355) read from the outside, with the rules of the API server's
 * election controller (pkg/controlplane/controller/leaderelection): candidates register a
 * LeaseCandidate for a Lease; when the Lease has no valid holder, or a better candidate appears,
 * the controller pings every candidate (spec.pingTime), waits up to 5 s (electionDuration) for
 * them to answer (spec.renewTime after pingTime), and writes the best of those that answered as
 * the holder; a holder that is no longer the best is asked to step down through the Lease's
 * spec.preferredHolder, and the controller hands the Lease over once it has run out (client-go's
 * holder stops renewing when it sees a preferred holder other than itself).
 *
 * The only built-in strategy is OldestEmulationVersion: the lowest emulation version first, then
 * the lowest binary version, then the candidate registered first (creationTimestamp).
 *
 * Deliberate differences: pingTime and renewTime are the API server's and the candidate's clocks,
 * compared here with ours (the controller compares them with its own), so a candidate's state is
 * only as right as the clocks agree; the controller's own choice is what the Lease then says.
 */
import type { LeaseCandidate } from '../kube/types.js';
import { parseMicroTime } from './micro-time.js';

export const OLDEST_EMULATION_VERSION = 'OldestEmulationVersion';
/** How long the controller waits for pinged candidates to answer (electionDuration). */
export const ELECTION_DURATION_MS = 5_000;
/** A candidate not renewed for this long is ignored by elections and then deleted (leaseCandidateValidDuration). */
export const CANDIDATE_VALID_MS = 30 * 60_000;

/** One LeaseCandidate, as plain data. Times as written. */
export interface CandidateRecord {
  namespace: string;
  /** metadata.name: the identity the candidate stands as (the Lease's holderIdentity when elected). */
  name: string;
  leaseName: string;
  binaryVersion: string | null;
  emulationVersion: string | null;
  strategy: string | null;
  pingTime: string | null;
  renewTime: string | null;
  creationTimestamp: string | null;
}

/**
 * ready: it answered the last ping (or was never pinged) and renewed within 30 minutes; pinged: the
 * controller asked it to answer less than 5 s ago and it has not yet; unresponsive: it did not
 * answer within 5 s (elections leave it out); expired: not renewed for 30 minutes (left out, then
 * deleted).
 */
export type CandidateState = 'ready' | 'pinged' | 'unresponsive' | 'expired';

export function candidateRecord(obj: LeaseCandidate): CandidateRecord {
  const s = obj.spec ?? {};
  const strategy = s.strategy ?? (s.preferredStrategies && s.preferredStrategies.length > 0 ? s.preferredStrategies[0]! : null);
  return {
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
    leaseName: s.leaseName ?? '',
    binaryVersion: s.binaryVersion || null,
    emulationVersion: s.emulationVersion || null,
    strategy: strategy || null,
    pingTime: s.pingTime ?? null,
    renewTime: s.renewTime ?? null,
    creationTimestamp: obj.metadata.creationTimestamp ?? null,
  };
}

export function candidateState(c: Pick<CandidateRecord, 'pingTime' | 'renewTime'>, now: number): CandidateState {
  const renew = c.renewTime === null ? undefined : parseMicroTime(c.renewTime);
  const ping = c.pingTime === null ? undefined : parseMicroTime(c.pingTime);
  if (renew !== undefined && renew + CANDIDATE_VALID_MS < now) return 'expired';
  if (ping !== undefined && (renew === undefined || renew < ping)) return now - ping < ELECTION_DURATION_MS ? 'pinged' : 'unresponsive';
  return 'ready';
}

/** A semantic version without its leading v; null when it is not one. Missing minor or patch count as 0. */
function parseVersion(v: string | null): { nums: [number, number, number]; pre: string[] } | null {
  if (v === null) return null;
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(v.trim());
  if (!m) return null;
  return { nums: [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)], pre: m[4] ? m[4].split('.') : [] };
}

/** Semver order: negative when a < b. A pre-release sorts before its release. */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (!x || !y) return (x ? 0 : 1) - (y ? 0 : 1);
  for (let i = 0; i < 3; i++) if (x.nums[i] !== y.nums[i]) return x.nums[i]! - y.nums[i]!;
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i]!;
    const q = y.pre[i]!;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return x.pre.length - y.pre.length;
}

/** Whether the controller can rank it by OldestEmulationVersion: both versions parse. */
function rankable(c: CandidateRecord): boolean {
  return parseVersion(c.binaryVersion) !== null && parseVersion(c.emulationVersion) !== null;
}

/** OldestEmulationVersion's order: emulation version, then binary version, then registered first. */
export function compareCandidates(a: CandidateRecord, b: CandidateRecord): number {
  return (
    compareVersions(a.emulationVersion ?? '', b.emulationVersion ?? '') ||
    compareVersions(a.binaryVersion ?? '', b.binaryVersion ?? '') ||
    (Date.parse(a.creationTimestamp ?? '') || 0) - (Date.parse(b.creationTimestamp ?? '') || 0) ||
    a.name.localeCompare(b.name)
  );
}

/** Why `a` ranks before `b` by OldestEmulationVersion. */
export function rankReason(a: CandidateRecord, b: CandidateRecord): string {
  if (compareVersions(a.emulationVersion ?? '', b.emulationVersion ?? '') !== 0) return `oldest emulation version, ${a.emulationVersion}`;
  if (compareVersions(a.binaryVersion ?? '', b.binaryVersion ?? '') !== 0) return `oldest binary version, ${a.binaryVersion}`;
  return 'same versions, registered first';
}

/** Candidates an election would count: not expired, not unresponsive. */
export function answering(candidates: readonly CandidateRecord[], now: number): CandidateRecord[] {
  return candidates.filter((c) => {
    const s = candidateState(c, now);
    return s === 'ready' || s === 'pinged';
  });
}

/** The strategy candidates ask for: the one of the candidate with the newest binary version (as the controller picks it). */
export function candidatesStrategy(candidates: readonly CandidateRecord[]): string | null {
  let best: CandidateRecord | undefined;
  for (const c of candidates) {
    if (!c.strategy) continue;
    if (!best || compareVersions(c.binaryVersion ?? '', best.binaryVersion ?? '') > 0) best = c;
  }
  return best?.strategy ?? null;
}

/** Best first by OldestEmulationVersion among those an election would count; the rest after, in the same order. */
export function rankCandidates(candidates: readonly CandidateRecord[], now: number): CandidateRecord[] {
  const counted = new Set(answering(candidates, now).filter(rankable));
  return [...candidates].sort((a, b) => Number(counted.has(b)) - Number(counted.has(a)) || compareCandidates(a, b));
}

/** The candidate OldestEmulationVersion puts first among those an election would count. */
export function bestCandidate(candidates: readonly CandidateRecord[], now: number): CandidateRecord | undefined {
  const counted = answering(candidates, now).filter(rankable);
  return counted.sort(compareCandidates)[0];
}

/** What the Lease looks like to the election, from its observer snapshot. */
export interface ElectionLease {
  holder: string | null;
  /** The observer's judgement on our clock. */
  state: 'valid' | 'expiring' | 'expired' | 'released';
  expiresInMs: number;
  strategy: string | null;
  preferredHolder: string | null;
  /**
   * Whether the holder wrote a new renewTime since we saw the current preferredHolder appear; null
   * when the preferred holder was already set when we started watching.
   */
  renewedSincePreferred: boolean | null;
}

export type ElectionVerdict =
  /** The holder is the one the strategy puts first (or the Lease's preferred holder). */
  | 'holder preferred'
  /** The Lease names a preferred holder other than the holder: a hand-over is asked for. */
  | 'handover'
  /** Nobody holds the Lease (released, or never held): the controller elects. */
  | 'no holder'
  /** The holder's lease ran out: the controller elects again. */
  | 'holder expired'
  /** Another candidate ranks first; the controller has not asked the holder to step down (yet). */
  | 'holder not first'
  /** Candidates are registered but the Lease has no strategy: its holder acquired it itself. */
  | 'not coordinated'
  /** A strategy the API server's controller does not run: another controller picks the holder. */
  | 'other strategy';

export interface Election {
  /** The Lease's strategy, else the one its candidates ask for. */
  strategy: string | null;
  /** The candidate the strategy puts first among those answering; null when none. */
  first: string | null;
  verdict: ElectionVerdict;
  /** One line: why the holder holds, or what the Lease waits for. Holds cluster strings (escape before a terminal). */
  reason: string;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function seconds(ms: number): string {
  return `${Math.max(0, Math.round(ms / 1000))}s`;
}

/**
 * Why the holder holds, or what the Lease waits for, under coordinated leader election; null for a
 * Lease outside it (no strategy and no candidate).
 */
export function judgeElection(lease: ElectionLease, candidates: readonly CandidateRecord[], now: number): Election | null {
  const strategy = lease.strategy ?? candidatesStrategy(candidates);
  if (strategy === null && candidates.length === 0) return null;
  const counted = answering(candidates, now);
  const pinged = candidates.filter((c) => candidateState(c, now) === 'pinged').length;
  const first = strategy === null || strategy === OLDEST_EMULATION_VERSION ? (bestCandidate(candidates, now) ?? null) : null;
  const byName = new Map(candidates.map((c) => [c.name, c]));
  const out = (verdict: ElectionVerdict, reason: string): Election => ({ strategy, first: first?.name ?? null, verdict, reason });
  const waitingForPings = pinged > 0 ? `, waiting for ${pinged} to answer its ping` : '';

  if (lease.holder === null) {
    if (candidates.length === 0) return out('no holder', 'no holder, and no LeaseCandidate for the election controller to pick');
    if (counted.length === 0) return out('no holder', `no holder: none of ${plural(candidates.length, 'candidate')} answers the election controller`);
    return out(
      'no holder',
      `no holder: the election controller picks one of ${plural(counted.length, 'answering candidate')}${first ? ` (first by ${OLDEST_EMULATION_VERSION}: ${first.name})` : ''}${waitingForPings}`,
    );
  }
  const holder = lease.holder;
  if (lease.strategy === null) {
    return out(
      'not coordinated',
      `not coordinated: the Lease has no strategy, so ${holder} acquired it itself (${plural(candidates.length, 'LeaseCandidate')} registered)`,
    );
  }
  if (lease.strategy !== OLDEST_EMULATION_VERSION) {
    return out('other strategy', `strategy ${lease.strategy} is not the API server's (${OLDEST_EMULATION_VERSION}): another controller picks the holder`);
  }
  if (lease.preferredHolder !== null && lease.preferredHolder !== holder) {
    const p = byName.get(lease.preferredHolder);
    const h = byName.get(holder);
    const why = p && h ? ` (${rankReason(p, h)})` : '';
    const prefix = `preferred holder ${lease.preferredHolder}${why}`;
    if (lease.state === 'expired')
      return out('handover', `${prefix} — holder ${holder} has stopped renewing and its lease has run out; the election controller hands it over`);
    if (lease.renewedSincePreferred === true) return out('handover', `${prefix} — holder ${holder} still renewing`);
    if (lease.renewedSincePreferred === false)
      return out('handover', `${prefix} — holder ${holder} has stopped renewing; its lease runs out in ${seconds(lease.expiresInMs)}`);
    return out('handover', `${prefix} — holder ${holder} holds until its lease runs out (in ${seconds(lease.expiresInMs)})`);
  }
  if (lease.preferredHolder === holder) return out('holder preferred', 'holder is the preferred holder');
  if (lease.state === 'expired') {
    return out(
      'holder expired',
      `holder ${holder} has not renewed within its lease: the election controller elects again among ${plural(counted.length, 'answering candidate')}${waitingForPings}`,
    );
  }
  const mine = byName.get(holder);
  if (first && first.name === holder) {
    const equal = counted.filter(
      (c) =>
        c.name !== holder &&
        compareVersions(c.emulationVersion ?? '', first.emulationVersion ?? '') === 0 &&
        compareVersions(c.binaryVersion ?? '', first.binaryVersion ?? '') === 0,
    ).length;
    const versions = `emulation ${first.emulationVersion}, binary ${first.binaryVersion}`;
    return out(
      'holder preferred',
      `holder is the preferred holder (${OLDEST_EMULATION_VERSION}: ${versions}${equal > 0 ? `; registered first of ${equal + 1} with those versions` : ''})`,
    );
  }
  if (!mine) {
    return out('holder not first', `holder ${holder} has no LeaseCandidate${first ? `; the election controller will prefer ${first.name}` : ''}`);
  }
  if (first)
    return out('holder not first', `${first.name} ranks first (${rankReason(first, mine)}); the election controller has not asked ${holder} to step down yet`);
  return out('holder preferred', `holder ${holder} holds; no candidate answers the election controller`);
}
