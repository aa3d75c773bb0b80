// The tracer at scale (BENCHMARKS.md, "The tracer at scale"): a rolling restart of a Deployment of
// 1,000 replicas (maxSurge 25%, maxUnavailable 25%) on kwok, traced end to end by the plugin as a
// user runs it, beside the floor: the client-go program (bench/clientgo, `sync -follow`) watching the
// same three resources over protobuf, as the plugin does, and doing nothing, over the same rollout.
//
//   npm run build && node bench/tracer-scale.mjs --kubeconfig FILE --go BINARY [--replicas 1000] [--cpu-prof DIR] [--json FILE] [--verbose]
//
// The cluster must run its controller manager, scheduler and kwok with room for the Pods (the local
// control plane's two kwok nodes take 1,000 Pods each). In a namespace of its own it creates the
// Deployment and waits until every replica is available (setup, not measured); then it starts the
// floor, waits until its caches synced, and runs `kubectl informer-trace deploy/scale --restart -o
// ndjson` under /usr/bin/time. Both end when the rollout has ended: the Deployment converged and
// every old Pod deleted. Measured:
//   - CPU seconds (user + system) and peak RSS of each process (getrusage: /usr/bin/time for ours,
//     the Go program's own for the floor), from start to the end of the rollout;
//   - hop emission lag: for each hop the tracer emitted, from when our informer received the object
//     version that shows it (observedAt) to when the worker emitted the hop (reconciledAt); p50, p99, max.
// Then a second rolling restart is traced in the TUI, on a 160x45 terminal of its own
// (bench/lib/tui-frames.mjs): each frame's time (the view read from the tracer, React's render,
// ink's layout and output) and its main-thread CPU time, p50, p99, max, and how busy the machine's
// CPUs were meanwhile. When the cluster is this project's local one (its state.json beside the
// kubeconfig), a third rolling restart is traced the same way with the control plane's scheduling
// groups at nice 19 and set back after: the frames' wait for a core that a cluster on other
// machines would not cause.
// The namespace is deleted at the end. run.mjs runs this as its `tracer-scale` phase.
import { accessSync, constants, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { LocalCluster } from '../build/tools/cluster/launcher.js';
import { connect } from '../dist/kube/index.js';
import { parseArgs } from './clients/common.mjs';
import { fmtNum, fmtRatio, markdownTable, percentile } from './lib/stats.mjs';
import { spawnLines } from './lib/child.mjs';
import { traceInTerminal } from './lib/tui-frames.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const TIME = '/usr/bin/time';
const NAME = 'scale';
/** Setup and the rollout each: bounded, so a stuck cluster ends the run instead of hanging it. */
const SETUP_TIMEOUT_MS = 8 * 60_000;
const ROLLOUT_TIMEOUT_MS = 10 * 60_000;
/** The terminal the TUI's frames are timed on. */
const TUI_SIZE = { columns: 160, rows: 45 };

function deployment(replicas) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: NAME },
    spec: {
      replicas,
      selector: { matchLabels: { app: NAME } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: NAME } },
        // No grace period: kwok deletes a terminating Pod at once, so the run measures the
        // controllers and the tracer rather than 30 s of waiting.
        spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'web', image: 'registry.invalid/web:1', resources: { requests: { cpu: '10m' } } }] },
      },
    },
  };
}

async function until(what, timeoutMs, cond, log) {
  const deadline = performance.now() + timeoutMs;
  let lastLog = 0;
  for (;;) {
    const state = await cond();
    if (state === true) return;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what} (${state})`);
    if (performance.now() - lastLog > 15_000) {
      log(`  waiting for ${what}: ${state}`);
      lastLog = performance.now();
    }
    await sleep(1_000);
  }
}

export async function measureTracerScale({ kubeconfig, go, replicas = 1000, log = () => {}, verbose = false, cpuProfDir }) {
  const { client } = connect({ kubeconfig });
  const ns = `bench-trace-${process.pid}`;
  const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
  await client.json('/api/v1/namespaces', { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
  try {
    // ---- setup: the Deployment, every replica available -------------------------------------------
    const t0 = performance.now();
    log(`tracer-scale: creating Deployment ${ns}/${NAME} with ${fmtNum(replicas, 0)} replicas and waiting until they are available`);
    await client.json(path, { method: 'POST', body: deployment(replicas) });
    await until(
      'the Deployment to be available',
      SETUP_TIMEOUT_MS,
      async () => {
        const d = await client.json(`${path}/${NAME}`);
        const s = d.status ?? {};
        return (
          (s.availableReplicas === replicas && s.updatedReplicas === replicas && s.replicas === replicas) || `${s.availableReplicas ?? 0}/${replicas} available`
        );
      },
      log,
    );
    const generation = (await client.json(`${path}/${NAME}`)).metadata.generation;
    log(`  available after ${fmtNum((performance.now() - t0) / 1000, 0)} s`);

    // ---- the floor, synced before the trigger ------------------------------------------------------
    let floorReady;
    const ready = new Promise((r) => (floorReady = r));
    let floorResult;
    const floor = spawnLines(
      go,
      [
        'sync',
        '-follow',
        NAME,
        '-generation',
        String(generation + 1),
        '-namespace',
        ns,
        '-kubeconfig',
        kubeconfig,
        '-transform',
        'strip',
        '-protobuf',
        '-timeout',
        `${ROLLOUT_TIMEOUT_MS / 1000}s`,
      ],
      {
        env: { KUBE_FEATURE_WatchListClient: 'false' },
        timeoutMs: ROLLOUT_TIMEOUT_MS + 60_000,
        verbose,
        label: 'floor',
        onLine: (line) => {
          const obj = JSON.parse(line);
          if (obj.ready) floorReady();
          else floorResult = obj;
        },
      },
    );
    await Promise.race([ready, floor.then((r) => Promise.reject(new Error(`the floor exited before it synced: ${r.stderr.trim().split('\n').at(-1)}`)))]);

    // ---- ours: the plugin, as installed, under /usr/bin/time --------------------------------------
    log(`tracer-scale: tracing the rolling restart of ${fmtNum(replicas, 0)} replicas`);
    const lags = [];
    let end;
    let summary;
    const started = performance.now();
    const ours = await spawnLines(
      TIME,
      [
        '-f',
        'bench-time %e %U %S %M',
        join(root, 'bin', 'kubectl-informer_trace'),
        `deploy/${NAME}`,
        '-n',
        ns,
        '--restart',
        '-o',
        'ndjson',
        '--timeout',
        `${ROLLOUT_TIMEOUT_MS / 1000}s`,
        '--kubeconfig',
        kubeconfig,
      ],
      {
        // bin/ runs the `node` on PATH: this one.
        env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, ...(cpuProfDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${cpuProfDir}` } : {}) },
        timeoutMs: ROLLOUT_TIMEOUT_MS + 60_000,
        verbose,
        label: 'ours',
        onLine: (line) => {
          const e = JSON.parse(line);
          if (e.type === 'hop') lags.push(e.hop.reconciledAt - e.hop.observedAt);
          else if (e.type === 'end') end = e;
          else if (e.type === 'summary') summary = e.summary;
        },
      },
    );
    const oursWallS = (performance.now() - started) / 1000;
    const timeLine = /bench-time (\S+) (\S+) (\S+) (\d+)/.exec(ours.stderr);
    if (ours.code !== 0 || !timeLine) throw new Error(`the trace exited with ${ours.code}: ${ours.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    const floorExit = await floor;
    if (floorExit.code !== 0 || !floorResult) throw new Error(`the floor exited with ${floorExit.code}: ${floorExit.stderr.trim().split('\n').at(-1)}`);

    // ---- the TUI: another rolling restart, traced on a terminal ------------------------------------
    log(`tracer-scale: tracing a second rolling restart in the TUI at ${TUI_SIZE.columns}x${TUI_SIZE.rows}`);
    const tuiArgs = [`deploy/${NAME}`, '-n', ns, '--restart', '--exit-on-converge', '--timeout', `${ROLLOUT_TIMEOUT_MS / 1000}s`, '--kubeconfig', kubeconfig];
    const tui = await framesInTerminal(tuiArgs);
    // ---- and a third, with the local control plane yielding the CPU to the plugin ------------------
    // Here the control plane shares the machine's cores with the plugin, as a user's cluster does
    // not: a frame's wall time includes waiting for a core. Linux weighs scheduling groups (one per
    // session, each component's own) before processes, so the groups are lowered, not the processes.
    const groups = controlPlaneGroups(kubeconfig);
    let tuiYielded;
    if (groups) {
      log(`tracer-scale: a third rolling restart in the TUI, the control plane's scheduling groups at nice 19`);
      try {
        for (const g of groups) setNice(g, 19);
        tuiYielded = await framesInTerminal(tuiArgs);
      } finally {
        for (const g of groups) setNice(g, g.nice);
      }
    } else {
      log('tracer-scale: no third TUI run: the control plane is not a local cluster of this project, or its scheduling groups cannot be changed here');
    }
    return {
      replicas,
      outcome: end?.outcome,
      convergeS: summary?.elapsedMs !== undefined ? summary.elapsedMs / 1000 : NaN,
      hops: lags.length,
      ours: { wallS: oursWallS, cpuS: Number(timeLine[2]) + Number(timeLine[3]), peakRssKB: Number(timeLine[4]) },
      floor: { wallS: floorResult.ms / 1000, cpuS: floorResult.cpuSec, peakRssKB: floorResult.peakRssKB, events: floorResult.events },
      lagMs: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags.length ? Math.max(...lags) : NaN },
      tui,
      tuiYielded,
    };
  } finally {
    await client.json(`/api/v1/namespaces/${ns}`, { method: 'DELETE' }).catch(() => {});
  }
}

/** Traces ARGV in the TUI on the benchmark's terminal: its frames, and how busy the machine's CPUs were meanwhile. */
async function framesInTerminal(argv) {
  const before = machineCpu();
  const tui = await traceInTerminal(argv, TUI_SIZE);
  const after = machineCpu();
  if (tui.code !== 0) throw new Error(`the TUI trace exited with ${tui.code}: ${tui.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return {
    ...TUI_SIZE,
    wallS: tui.wallS,
    frames: tui.frames.length,
    // Writes to the terminal outside any measured stretch (entering the alternate screen): a
    // check that the frames were all seen.
    unmeasuredWrites: tui.outside,
    bytes: tui.bytes,
    frameMs: { p50: percentile(tui.frames, 50), p99: percentile(tui.frames, 99), max: tui.frames.length ? Math.max(...tui.frames) : NaN },
    // The main thread's CPU time in each frame: the rest of a frame's time it waited for a core.
    frameCpuMs: { p50: percentile(tui.cpuFrames, 50), p99: percentile(tui.cpuFrames, 99), max: tui.cpuFrames.length ? Math.max(...tui.cpuFrames) : NaN },
    // How busy the machine's CPUs were meanwhile (the local control plane runs the rollout on them).
    machineBusy: before && after ? 1 - (after.idle - before.idle) / (after.total - before.total) : NaN,
  };
}

/**
 * The scheduling groups (/proc/PID/autogroup) of the local cluster's components, with their nice
 * values, when the kubeconfig is one of this project's local clusters (its state.json beside it)
 * and each group can be written; else undefined.
 */
function controlPlaneGroups(kubeconfig) {
  try {
    const cluster = LocalCluster.attach(dirname(kubeconfig), () => {});
    const running = Object.values(cluster?.describe().components ?? {}).filter((c) => c.running);
    const groups = running.map((c) => {
      const file = `/proc/${c.pid}/autogroup`;
      const nice = Number(/nice (-?\d+)/.exec(readFileSync(file, 'utf8'))?.[1]);
      accessSync(file, constants.W_OK);
      return { file, nice: Number.isFinite(nice) ? nice : 0 };
    });
    return groups.length ? groups : undefined;
  } catch {
    return undefined;
  }
}

/** Sets a scheduling group's nice value; a component that has exited since (the launcher restarts some) has no group to set. */
function setNice(group, nice) {
  try {
    writeFileSync(group.file, String(nice));
  } catch (err) {
    if (err.code !== 'ENOENT' && err.code !== 'ESRCH') throw err;
  }
}

/** All CPUs' idle and total time so far (Linux /proc/stat, in ticks); undefined elsewhere. */
function machineCpu() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
    return { idle: fields[3] + fields[4], total: fields.slice(0, 8).reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
}

export const TRACER_SCALE_HEADER = ['measurement', 'ours', 'floor (client-go, three informers, no work)', 'ours ÷ floor'];

export function tracerScaleRows(r) {
  const what = `rolling restart of ${fmtNum(r.replicas, 0)} replicas (${r.outcome}, ${fmtNum(r.hops, 0)} hops, converged in ${fmtNum(r.convergeS, 1)} s)`;
  return [
    [`${what}: CPU (user + system)`, `${fmtNum(r.ours.cpuS, 2)} s`, `${fmtNum(r.floor.cpuS, 2)} s`, fmtRatio(r.ours.cpuS / r.floor.cpuS)],
    [
      `${what}: peak RSS`,
      `${fmtNum(r.ours.peakRssKB / 1024, 0)} MiB`,
      `${fmtNum(r.floor.peakRssKB / 1024, 0)} MiB`,
      fmtRatio(r.ours.peakRssKB / r.floor.peakRssKB),
    ],
    [`${what}: wall time of the process`, `${fmtNum(r.ours.wallS, 1)} s`, `${fmtNum(r.floor.wallS, 1)} s (from synced)`, ''],
    [
      `${what}: CPU ÷ wall time`,
      `${fmtNum((r.ours.cpuS / r.ours.wallS) * 100, 0)} % of a core`,
      `${fmtNum((r.floor.cpuS / r.floor.wallS) * 100, 0)} % of a core`,
      '',
    ],
    [
      `${what}: hop emission lag (received → emitted) p50 / p99 / max`,
      `${fmtNum(r.lagMs.p50, 0)} / ${fmtNum(r.lagMs.p99, 0)} / ${fmtNum(r.lagMs.max, 0)} ms`,
      '',
      '',
    ],
    ...tuiRows(`a second rolling restart in the TUI at ${r.tui.columns}x${r.tui.rows}`, r.tui),
    ...(r.tuiYielded ? tuiRows('a third, the control plane at nice 19', r.tuiYielded) : []),
  ];
}

function tuiRows(what, t) {
  return [
    [
      `${what} (${fmtNum(t.frames, 0)} frames in ${fmtNum(t.wallS, 0)} s): frame time p50 / p99 / max`,
      `${fmtNum(t.frameMs.p50, 1)} / ${fmtNum(t.frameMs.p99, 1)} / ${fmtNum(t.frameMs.max, 1)} ms`,
      '',
      '',
    ],
    [
      `the same frames: the main thread's CPU time p50 / p99 / max (the machine's CPUs ${fmtNum(t.machineBusy * 100, 0)} % busy meanwhile)`,
      `${fmtNum(t.frameCpuMs.p50, 1)} / ${fmtNum(t.frameCpuMs.p99, 1)} / ${fmtNum(t.frameCpuMs.max, 1)} ms`,
      '',
      '',
    ],
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = parseArgs(process.argv.slice(2));
  if (!args.kubeconfig || !args.go) {
    process.stderr.write('usage: node bench/tracer-scale.mjs --kubeconfig FILE --go CLIENTGO_BINARY [--replicas 1000] [--json FILE] [--verbose]\n');
    process.exit(2);
  }
  const log = (s) => process.stderr.write(`[tracer-scale ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
  measureTracerScale({
    kubeconfig: args.kubeconfig,
    go: args.go,
    replicas: Number(args.replicas ?? 1000),
    log,
    verbose: args.verbose === 'true',
    cpuProfDir: args['cpu-prof'],
  }).then(
    async (r) => {
      process.stdout.write(`\n${markdownTable(TRACER_SCALE_HEADER, tracerScaleRows(r))}\n`);
      if (args.json) (await import('node:fs')).writeFileSync(args.json, JSON.stringify(r, null, 1));
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`tracer-scale: ${err.message}\n`);
      process.exit(1);
    },
  );
}
