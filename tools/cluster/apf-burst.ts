/**
 * A burst of 429s from the API server itself (API Priority and Fairness) against one user, for
 * the e2e tests and the soak benchmark: what a client meets when the API server sheds its load.
 *
 * A FlowSchema matches the user at matchingPrecedence 2, ahead of every FlowSchema but "exempt"
 * (matchingPrecedence 1, which no other may have; it matches system:masters, so the user must not
 * be in that group). At equal precedence the name that sorts first wins, and "probes" is at 2 too:
 * the name must sort before it. Its PriorityLevelConfiguration has no seats (no nominal share, none
 * lent or borrowed) and rejects instead of queueing. A level's queue set still admits one request
 * when none is executing, so the burst holds that one: a POST as the user whose body never ends
 * keeps its seat until it is cut (within the API server's 60 s request timeout), and is replaced
 * when it ends. Every other request of the user is then answered 429 with a Retry-After.
 *
 * The user's client certificate is the one LocalCluster.userKubeconfig() made; it needs the right
 * to create ConfigMaps in `namespace` (the seat holder's POST is authorized after it is admitted,
 * and a refused one would give its seat up at once). end() cuts the holder, deletes both objects
 * and waits until the user is served again.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseExposition } from '../../src/metrics/parse.js';
import type { LocalCluster } from './launcher.js';
import type { ClientIdentity } from './pki.js';

const APF = '/apis/flowcontrol.apiserver.k8s.io/v1';

export interface ApfBurstOptions {
  /** Of the FlowSchema and the PriorityLevelConfiguration; sorts before "probes". */
  name: string;
  /** The user throttled, with the client certificate LocalCluster.userKubeconfig() made. */
  user: ClientIdentity;
  /** Where the seat holder POSTs a ConfigMap it never finishes; a GET of its ConfigMaps checks the throttle. */
  namespace: string;
  /** How long start() waits for the API server to apply the objects. Default 60 s. */
  timeoutMs?: number;
}

/** What the burst did: the API server's rejections of the user, less the seat holders'. */
export interface ApfBurstResult {
  rejected: number;
  /** Retry-After of the 429 that showed the throttle in force, in seconds. */
  retryAfterSeconds: number | undefined;
  /** Seat holders opened, and how many of them were rejected themselves. */
  seatHolders: number;
  holdersRejected: number;
}

/** The PriorityLevelConfiguration and FlowSchema that send every request of `user` to no seats. */
export function apfRejectObjects(name: string, user: string): { priorityLevel: Record<string, unknown>; flowSchema: Record<string, unknown> } {
  if (!(name < 'probes')) throw new Error(`the FlowSchema's name must sort before "probes", which has its precedence: ${name}`);
  return {
    priorityLevel: {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name },
      spec: {
        type: 'Limited',
        limited: { nominalConcurrencyShares: 0, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Reject' } },
      },
    },
    flowSchema: {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'FlowSchema',
      metadata: { name },
      spec: {
        priorityLevelConfiguration: { name },
        matchingPrecedence: 2,
        distinguisherMethod: { type: 'ByUser' },
        rules: [
          {
            subjects: [{ kind: 'User', user: { name: user } }],
            resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
            nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
          },
        ],
      },
    },
  };
}

/** apiserver_flowcontrol_rejected_requests_total for the FlowSchema `name`, every reason summed. */
export async function apfRejectedRequests(cluster: LocalCluster, name: string): Promise<number> {
  const r = await cluster.adminRequest('GET', '/metrics');
  if (r.status !== 200) throw new Error(`GET /metrics: ${r.status} ${r.body.slice(0, 200)}`);
  const family = parseExposition(r.body, { format: 'prometheus' }).families.find((f) => f.name === 'apiserver_flowcontrol_rejected_requests_total');
  return (family?.samples ?? []).filter((s) => s.labels.flow_schema === name).reduce((n, s) => n + s.value, 0);
}

/** Deletes the burst's objects named `name`, if there are any. */
export async function deleteApfObjects(cluster: LocalCluster, name: string): Promise<void> {
  for (const path of [`${APF}/flowschemas/${name}`, `${APF}/prioritylevelconfigurations/${name}`]) {
    const r = await cluster.adminRequest('DELETE', path);
    if (r.status >= 300 && r.status !== 404) throw new Error(`DELETE ${path}: ${r.status} ${r.body.slice(0, 200)}`);
  }
}

interface Request {
  /** The status it was answered with (0: no answer); undefined while it runs. */
  status: number | undefined;
  retryAfter: string | undefined;
  done: Promise<void>;
  cut(): void;
}

export class ApfBurst {
  private holder: Request;
  private seatHolders = 1;
  private holdersRejected = 0;
  private readonly keeper: NodeJS.Timeout;
  private result: Promise<ApfBurstResult> | undefined;

  private constructor(
    private readonly cluster: LocalCluster,
    private readonly o: ApfBurstOptions,
    private readonly tls: { ca: Buffer; cert: Buffer; key: Buffer },
    holder: Request,
    private readonly retryAfterSeconds: number | undefined,
    private readonly rejectedAtStart: number,
  ) {
    this.holder = holder;
    // The seat stays held: a holder that ended (cut by the API server's timeout) is replaced.
    this.keeper = setInterval(() => this.keepSeat(), 500);
  }

  /**
   * Creates the objects (after deleting what an interrupted run left) and resolves once a request
   * as the user is answered 429 while a holder has the seat: from then on, until end(), the user is
   * throttled.
   */
  static async start(cluster: LocalCluster, o: ApfBurstOptions): Promise<ApfBurst> {
    const { priorityLevel, flowSchema } = apfRejectObjects(o.name, o.user.user);
    const pki = join(cluster.dir, 'pki');
    const tls = {
      ca: readFileSync(join(pki, 'ca.crt')),
      cert: readFileSync(join(pki, `${o.user.file}.crt`)),
      key: readFileSync(join(pki, `${o.user.file}.key`)),
    };
    await deleteApfObjects(cluster, o.name);
    for (const [collection, obj] of [
      [`${APF}/prioritylevelconfigurations`, priorityLevel],
      [`${APF}/flowschemas`, flowSchema],
    ] as const) {
      const r = await cluster.adminRequest('POST', collection, obj);
      if (r.status !== 201) throw new Error(`POST ${collection}: ${r.status} ${r.body.slice(0, 200)}`);
    }
    const timeoutMs = o.timeoutMs ?? 60_000;
    const until = Date.now() + timeoutMs;
    let check: Request | undefined;
    try {
      for (;;) {
        const holder = asUser(cluster.server, tls, 'POST', `/api/v1/namespaces/${o.namespace}/configmaps`, true);
        await sleep(250);
        if (holder.status === undefined) {
          check = asUser(cluster.server, tls, 'GET', `/api/v1/namespaces/${o.namespace}/configmaps?limit=1`, false);
          await check.done;
          if (check.status === 429 && holder.status === undefined) {
            const retryAfter = check.retryAfter === undefined ? undefined : Number(check.retryAfter);
            return new ApfBurst(cluster, o, tls, holder, retryAfter, await apfRejectedRequests(cluster, o.name));
          }
        }
        // Rejected, or admitted before the objects applied (then it holds a seat elsewhere): again.
        holder.cut();
        await holder.done;
        if (Date.now() > until) throw new Error(`${o.user.user} was not throttled within ${timeoutMs} ms (a GET answered ${check?.status})`);
      }
    } catch (err) {
      await deleteApfObjects(cluster, o.name);
      throw err;
    }
  }

  /**
   * Ends the burst: the holder cut, the objects deleted; resolves once a request as the user is
   * served again (within 30 s), with what the burst did.
   */
  end(): Promise<ApfBurstResult> {
    this.result ??= this.finish();
    return this.result;
  }

  private async finish(): Promise<ApfBurstResult> {
    clearInterval(this.keeper);
    let result: ApfBurstResult;
    try {
      this.holder.cut();
      await this.holder.done;
      this.countHolder(this.holder);
      const rejected = (await apfRejectedRequests(this.cluster, this.o.name)) - this.rejectedAtStart - this.holdersRejected;
      result = { rejected, retryAfterSeconds: this.retryAfterSeconds, seatHolders: this.seatHolders, holdersRejected: this.holdersRejected };
    } finally {
      await deleteApfObjects(this.cluster, this.o.name);
    }
    const until = Date.now() + 30_000;
    for (;;) {
      const check = asUser(this.cluster.server, this.tls, 'GET', `/api/v1/namespaces/${this.o.namespace}/configmaps?limit=1`, false);
      await check.done;
      if (check.status !== 429) return result;
      if (Date.now() > until) throw new Error(`${this.o.user.user} was still answered 429 30 s after the burst's objects were deleted`);
      await sleep(250);
    }
  }

  private keepSeat(): void {
    if (this.holder.status === undefined) return;
    this.countHolder(this.holder);
    this.holder = asUser(this.cluster.server, this.tls, 'POST', `/api/v1/namespaces/${this.o.namespace}/configmaps`, true);
    this.seatHolders++;
  }

  private countHolder(h: Request): void {
    if (h.status === 429) this.holdersRejected++;
  }
}

/** A request as the user, straight to the API server; `endless`: a body that never ends. */
function asUser(server: string, tls: { ca: Buffer; cert: Buffer; key: Buffer }, method: string, path: string, endless: boolean): Request {
  const req = request(`${server}${path}`, {
    method,
    ...tls,
    headers: endless ? { 'content-type': 'application/json', 'content-length': '65536' } : {},
    timeout: endless ? 0 : 10_000,
  });
  const r: Request = { status: undefined, retryAfter: undefined, done: Promise.resolve(), cut: () => req.destroy() };
  r.done = new Promise<void>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      r.status = res.statusCode ?? 0;
      r.retryAfter = res.headers['retry-after'];
      resolve();
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => {
      r.status ??= 0;
      resolve();
    });
  });
  if (endless) req.write('{"metadata":');
  else req.end();
  return r;
}
