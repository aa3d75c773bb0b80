/**
 * `kubectl informer-trace check` and `kubectl lease-watch check`: the measurements as assertions
 * for CI. A rollout converges in time with no slow hop, a Lease is renewed and does not flap, the
 * controllers' workqueues stay shallow and rarely retry; several at once from a YAML file.
 *
 * Exit codes (src/exit-codes.ts): 0 every limit held, 1 one did not, 2 bad flags or config (nothing
 * was sent), 3 the cluster could not be reached or refused us, 130 interrupted.
 * Reports: a summary on stderr always; -o json|yaml on stdout; --junit FILE; a Markdown table
 * appended to $GITHUB_STEP_SUMMARY when it is set.
 */
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { addConnectionFlags, connectionFlags } from '../cli/connection-flags.js';
import type { CommandIO } from '../cli/io.js';
import { addMetricsFlags, planMetrics } from '../cli/metrics-flags.js';
import { describeSpec, runChecks, specsFromConfig, specsFromFlags, type CheckFlagValues, type CheckSpec, type MetricsAccess } from '../check/index.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { connect, type Kube } from '../kube/index.js';
import { checkReportText } from '../output/check-text.js';
import { renderStructured } from '../output/format.js';
import { checkReportJunit } from '../output/junit.js';
import { checkReportMarkdown } from '../output/markdown.js';
import { formatDuration, parseDuration } from '../util/duration.js';

interface CheckOptions extends CheckFlagValues {
  config?: string;
  output?: 'json' | 'yaml';
  junit?: string;
  syncTimeout: string;
  namespace?: string;
  metricsToken?: string;
  metricsKubeconfigCredentials?: boolean;
  metricsInsecureSkipTlsVerify?: boolean;
  insecureSkipTlsVerify?: boolean;
  metricsTimeout?: string;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

const EXAMPLES: Record<'informer-trace' | 'lease-watch', string[]> = {
  'informer-trace': [
    '  kubectl informer-trace check --restart deploy/web -n demo --max-converge 60s --max-hop 20s',
    '  kubectl informer-trace check --metrics https://127.0.0.1:10257/metrics --metrics-insecure-skip-tls-verify \\',
    '      --max-depth deployment=10 --max-retry-rate 1/s --window 60s',
    '  kubectl informer-trace check --config health.yaml --junit check-results.xml -o json',
  ],
  'lease-watch': [
    '  kubectl lease-watch check --lease kube-system/kube-controller-manager --max-renew-age 20s --max-transitions 2 --window 5m',
    '  kubectl lease-watch check --config health.yaml --junit check-results.xml',
  ],
};

export function createCheckCommand(io: CommandIO, setExitCode: (code: ExitCode) => void, program: 'informer-trace' | 'lease-watch'): Command {
  const cmd = new Command('check')
    .description('check a rollout, a Lease or controller workqueues against limits, for CI (exit 0 pass, 1 fail, 2 usage, 3 cluster)')
    .option('--config <file>', 'run the checks in a YAML file (see docs/ci.md), with those the flags give')
    .option('--restart <TYPE/NAME>', 'rollout check: restart the workload (as kubectl rollout restart) and trace it (repeatable)', collect, [])
    .option('--scale <TYPE/NAME=N>', 'rollout check: scale the workload to N replicas and trace it (repeatable)', collect, [])
    .option('--max-converge <duration>', 'rollout check: the longest the rollout may take to converge, e.g. 60s')
    .option('--max-hop <duration>', 'rollout check: the longest any hop may take after the one it follows, e.g. 20s')
    .option('--timeout <duration>', 'rollout check: how long to wait for convergence (default: --max-converge, else 5m)')
    .option('--lease <NAMESPACE/NAME>', 'lease check: the Lease to watch (repeatable)', collect, [])
    .option('--max-renew-age <duration>', 'lease check: the longest the Lease may go without a renewal, e.g. 20s')
    .option('--max-transitions <n>', 'lease check: the most holder changes allowed within the window');
  addMetricsFlags(cmd, 'queue check: scrape workqueue metrics from');
  cmd
    .option('--max-depth <[QUEUE=]N>', 'queue check: the highest workqueue depth allowed, for one queue or (without QUEUE=) each (repeatable)', collect, [])
    .option('--max-retry-rate <[QUEUE=]RATE>', 'queue check: the most retries per second allowed over the window, e.g. 1/s or replicaset=30/m (repeatable)', collect, [])
    .option('--sample-interval <duration>', 'queue check: time between scrapes for the highest depth (default: a sixth of the window, 1s–10s)')
    .option('--window <duration>', 'lease and queue checks: how long to watch', '60s')
    .addOption(new Option('-o, --output <format>', 'print the report on stdout as json or yaml (the summary goes to stderr either way)').choices(['json', 'yaml']))
    .option('--junit <file>', 'write the report as JUnit XML to FILE')
    .option('--sync-timeout <duration>', 'how long to wait for the informer caches to sync', '60s')
    .addHelpText('after', ['', 'Examples:', ...EXAMPLES[program], '', 'With $GITHUB_STEP_SUMMARY set (GitHub Actions), a Markdown table of the results is appended to it.'].join('\n'));
  addConnectionFlags(cmd);
  cmd.action(async (_local: CheckOptions, command: Command) => {
    const opts = withParentConnectionFlags(command) as unknown as CheckOptions;
    // --window has a default for the help text; as a flag it is only "given" when the user gave it.
    const flags: CheckFlagValues = { ...opts, window: command.getOptionValueSource('window') === 'default' ? undefined : opts.window };
    setExitCode(await runCheckCommand(io, `kubectl ${program} check`, opts, flags));
  });
  return cmd;
}

const CONNECTION_KEYS = ['kubeconfig', 'context', 'cluster', 'user', 'server', 'token', 'certificateAuthority', 'insecureSkipTlsVerify', 'requestTimeout', 'namespace', 'v'];

/**
 * This command's own options, plus the connection flags given before `check` (kubectl informer-trace
 * --context x check …). Not optsWithGlobals: the parent's other options have defaults of their own
 * (the trace's --timeout 2m) that are not this command's.
 */
function withParentConnectionFlags(command: Command): Record<string, unknown> {
  const out: Record<string, unknown> = { ...command.opts() };
  for (let p = command.parent; p; p = p.parent) {
    for (const key of CONNECTION_KEYS) {
      if (p.getOptionValueSource(key) === 'cli' && command.getOptionValueSource(key) !== 'cli') out[key] = p.getOptionValue(key);
    }
  }
  return out;
}

function accessOf(opts: CheckOptions): MetricsAccess {
  const plan = planMetrics(opts);
  return {
    insecureSkipTlsVerify: Boolean(opts.metricsInsecureSkipTlsVerify) || Boolean(opts.insecureSkipTlsVerify),
    kubeconfigCredentials: Boolean(opts.metricsKubeconfigCredentials),
    token: opts.metricsToken,
    timeoutMs: plan.timeoutMs,
  };
}

function specsOf(opts: CheckOptions, flags: CheckFlagValues, namespace: string | undefined, access: MetricsAccess, configText: string | undefined): CheckSpec[] {
  const specs = specsFromFlags(flags, namespace, access);
  if (opts.config !== undefined && configText !== undefined) specs.push(...specsFromConfig(configText, opts.config, { namespace, access }));
  const seen = new Set<string>();
  for (const s of specs) {
    if (seen.has(s.name)) throw new UsageError(`two checks are named "${s.name}"`, { hint: 'give the config file\'s checks a distinct name:, or drop the duplicate flag' });
    seen.add(s.name);
  }
  return specs;
}

function needsCluster(specs: readonly CheckSpec[]): boolean {
  return specs.some((s) => s.kind !== 'queue' || s.access.kubeconfigCredentials || s.metrics.some((m) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(m.trim())));
}

async function runCheckCommand(io: CommandIO, command: string, opts: CheckOptions, flags: CheckFlagValues): Promise<ExitCode> {
  // Everything is read and checked before any request.
  let syncTimeoutMs: number;
  try {
    syncTimeoutMs = parseDuration(opts.syncTimeout) || 60_000;
  } catch (err) {
    throw new UsageError(`--sync-timeout: ${(err as Error).message}`);
  }
  const access = accessOf(opts);
  let configText: string | undefined;
  if (opts.config !== undefined) {
    try {
      configText = readFileSync(opts.config, 'utf8');
    } catch (err) {
      throw new UsageError(`--config ${opts.config}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
  let specs = specsOf(opts, flags, opts.namespace, access, configText);
  if (specs.length === 0) {
    throw new UsageError('nothing to check', { hint: 'give --restart TYPE/NAME, --scale TYPE/NAME=N, --lease NAMESPACE/NAME, --metrics SOURCE, or --config FILE (see --help)' });
  }
  if (opts.junit !== undefined) {
    const dir = dirname(resolve(opts.junit));
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--junit ${opts.junit}: the folder ${dir} does not exist`);
  }
  let kube: Kube | undefined;
  if (needsCluster(specs)) {
    kube = connect(connectionFlags(opts as unknown as Record<string, unknown>));
    // Names and reports say which namespace: the context's when -n is not given.
    specs = specsOf(opts, flags, kube.connection.namespace, access, configText);
  }

  const log = (line: string): void => void io.stderr.write(`${line}\n`);
  log(`checking ${specs.length} thing${specs.length === 1 ? '' : 's'}:`);
  for (const s of specs) log(`  ${s.name}: ${describeSpec(s)}`);
  const report = await runChecks(specs, {
    command,
    signal: io.signal,
    log,
    syncTimeoutMs,
    kube,
    onDone: (run) => {
      const failed = run.results.filter((r) => r.status !== 'passed').length;
      log(`${run.name}: done in ${formatDuration(run.durationMs)}, ${failed === 0 ? 'passed' : `${failed} of ${run.results.length} not passed`}`);
    },
  });

  io.stderr.write(`\n${checkReportText(report)}`);
  if (opts.output) io.stdout.write(renderStructured(report, opts.output));
  let exitCode = report.exitCode;
  const reportFailed = (what: string, err: unknown): void => {
    log(`error: could not write ${what}: ${(err as Error).message}`);
    if (exitCode === ExitCode.Ok) exitCode = ExitCode.Usage;
  };
  if (opts.junit !== undefined) {
    try {
      writeFileSync(opts.junit, checkReportJunit(report));
      log(`wrote JUnit XML to ${opts.junit}`);
    } catch (err) {
      reportFailed(`--junit ${opts.junit}`, err);
    }
  }
  const summary = io.env.GITHUB_STEP_SUMMARY;
  if (summary) {
    try {
      appendFileSync(summary, checkReportMarkdown(report));
    } catch (err) {
      reportFailed(`$GITHUB_STEP_SUMMARY (${summary})`, err);
    }
  }
  return exitCode;
}
