/**
 * `kubectl informer-trace check` and `kubectl lease-watch check`: the measurements as assertions
 * for CI. A rollout converges in time with no slow hop, a Lease is renewed and does not flap, the
 * controllers' workqueues stay shallow and rarely retry; several at once from a YAML file.
 *
 * Exit codes (src/exit-codes.ts): 0 every limit held, 1 one did not, 2 bad flags or config (nothing
 * was sent), 3 the cluster could not be reached or refused us, 130 interrupted.
 * Reports: a summary on stderr always; -o json|yaml on stdout; --junit FILE; --artifacts DIR (each
 * rollout check's waterfall as an SVG named after the check, listed in the report); a Markdown table
 * appended to $GITHUB_STEP_SUMMARY when it is set. Every line on stderr is escaped as one line
 * (src/util/escape.ts): the checks log what the cluster says.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { addConnectionFlags, connectionFlags } from '../cli/connection-flags.js';
import { readStdin, say, type CommandIO } from '../cli/io.js';
import { collect, requireFolderOf, syncTimeoutFlag } from '../cli/options.js';
import { addMetricsFlags, planMetrics } from '../cli/metrics-flags.js';
import { addReadinessFlags, readinessFromFlags, type ReadinessFlagValues } from '../cli/readiness-flags.js';
import { ArtifactsDir } from '../output/artifacts.js';
import { describeSpec, readCheckPlan, readCheckSpecs, runChecks, type CheckFlagValues, type CheckSpec, type ManifestInputs } from '../check/index.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { connect, type Kube } from '../kube/index.js';
import { checkReportText } from '../output/check-text.js';
import { renderStructured } from '../output/format.js';
import { checkReportJunit } from '../output/junit.js';
import { checkReportMarkdown } from '../output/markdown.js';
import { metricsNeedCluster, parseMetricsSpec } from '../metrics/index.js';
import { formatDuration } from '../util/duration.js';

interface CheckOptions extends CheckFlagValues, ReadinessFlagValues {
  config?: string;
  output?: 'json' | 'yaml';
  junit?: string;
  artifacts?: string;
  syncTimeout: string;
  namespace?: string;
  metricsToken?: string;
  metricsKubeconfigCredentials?: boolean;
  metricsInsecureSkipTlsVerify?: boolean;
  insecureSkipTlsVerify?: boolean;
  metricsTimeout?: string;
}

const EXAMPLES: Record<'informer-trace' | 'lease-watch', string[]> = {
  'informer-trace': [
    '  kubectl informer-trace check --restart deploy/web -n demo --max-converge 60s --max-hop 20s',
    '  kubectl informer-trace check --apply -f web.yaml -n demo --max-converge 2m --junit check-results.xml',
    '  kubectl informer-trace check --watch -l app.kubernetes.io/instance=shop -n shop --max-converge 2m --junit results.xml   # a helm upgrade in another step',
    '  kubectl informer-trace check --metrics https://127.0.0.1:10257/metrics --metrics-insecure-skip-tls-verify \\',
    '      --max-depth deployment=10 --max-retry-rate 1/s --window 60s',
    '  kubectl informer-trace check --controller kube-controller-manager --max-retry-rate 1/s --window 60s',
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
    .option(
      '--apply',
      'rollout check: apply each -f server-side (as kubectl apply --server-side; it may create the objects) and trace it: a file of one object is one check; a folder or a file of several, one check of every object',
    )
    .option(
      '-f, --filename <file>',
      'the objects for --apply: a file (YAML, JSON, a List), a folder of them, or - for stdin (repeatable: one check each)',
      collect,
      [],
    )
    .option('-R, --recursive', "-f: read a folder's subfolders too")
    .option(
      '--watch',
      'set check, no write: check the next change someone else makes (a helm upgrade in another step) to the objects of -f, or to those -l selects',
    )
    .option('-l, --selector <selector>', '--watch: the objects with these labels, e.g. app.kubernetes.io/instance=shop')
    .option('--kinds <types>', '--watch -l: the kinds to select among, comma-separated (default: those of kubectl get all)')
    .option('--max-converge <duration>', 'rollout check: the longest the rollout may take to converge, e.g. 60s')
    .option('--max-hop <duration>', 'rollout check: the longest any hop may take after the one it follows, e.g. 20s')
    .option('--timeout <duration>', 'rollout check: how long to wait for convergence (default: --max-converge, else 5m)')
    .option('--lease <NAMESPACE/NAME>', 'lease check: the Lease to watch (repeatable)', collect, [])
    .option('--max-renew-age <duration>', 'lease check: the longest the Lease may go without a renewal, e.g. 20s')
    .option('--max-transitions <n>', 'lease check: the most holder changes allowed within the window');
  addMetricsFlags(
    cmd,
    'queue check (with --max-depth / --max-retry-rate), or the operator behind a rollout check of a custom resource: scrape workqueue metrics from',
  );
  cmd
    .option('--max-depth <[QUEUE=]N>', 'queue check: the highest workqueue depth allowed, for one queue or (without QUEUE=) each (repeatable)', collect, [])
    .option(
      '--max-retry-rate <[QUEUE=]RATE>',
      'queue check: the most retries per second allowed over the window, e.g. 1/s or replicaset=30/m (repeatable)',
      collect,
      [],
    )
    .option('--sample-interval <duration>', 'queue check: time between scrapes for the highest depth (default: a sixth of the window, 1s–10s)')
    .option(
      '--controller <name>',
      'controller check: a component as `top` shows it (e.g. kube-controller-manager) must have a leader throughout, its queues held to --max-depth and --max-retry-rate (repeatable)',
      collect,
      [],
    )
    .option('--window <duration>', 'lease, queue and controller checks: how long to watch', '60s')
    .addOption(
      new Option('-o, --output <format>', 'print the report on stdout as json or yaml (the summary goes to stderr either way)').choices(['json', 'yaml']),
    )
    .option('--junit <file>', 'write the report as JUnit XML to FILE')
    .option('--artifacts <dir>', 'write files for CI into DIR (made if need be): the waterfall of each rollout check, as an SVG named after the check')
    .option('--sync-timeout <duration>', 'how long to wait for the informer caches to sync', '60s')
    .addHelpText(
      'after',
      ['', 'Examples:', ...EXAMPLES[program], '', 'With $GITHUB_STEP_SUMMARY set (GitHub Actions), a Markdown table of the results is appended to it.'].join(
        '\n',
      ),
    );
  addReadinessFlags(cmd);
  addConnectionFlags(cmd);
  cmd.action(async (_local: CheckOptions, command: Command) => {
    const opts = withParentConnectionFlags(command) as unknown as CheckOptions;
    // --window has a default for the help text; as a flag it is only "given" when the user gave it.
    const flags: CheckFlagValues = { ...opts, window: command.getOptionValueSource('window') === 'default' ? undefined : opts.window };
    setExitCode(await runCheckCommand(io, `kubectl ${program} check`, opts, flags));
  });
  return cmd;
}

const CONNECTION_KEYS = [
  'kubeconfig',
  'context',
  'cluster',
  'user',
  'server',
  'token',
  'certificateAuthority',
  'insecureSkipTlsVerify',
  'requestTimeout',
  'disableCompression',
  'namespace',
  'v',
];

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

function needsCluster(specs: readonly CheckSpec[]): boolean {
  return specs.some((s) => s.kind !== 'queue' || metricsNeedCluster(s.metrics.map(parseMetricsSpec), s.access));
}

/** Manifests for --apply are read from their files; stdin (-f -) once, up front, only when asked for. */
async function manifestInputs(io: CommandIO, opts: CheckOptions): Promise<ManifestInputs> {
  let stdin: string | undefined;
  if ((opts.apply || opts.watch) && opts.filename?.includes('-')) stdin = await readStdin(io, 'the manifest');
  return {
    readFile: (path) => (path === '-' && stdin !== undefined ? stdin : readFileSync(path, 'utf8')),
    namespaceFlag: opts.namespace,
  };
}

async function runCheckCommand(io: CommandIO, command: string, opts: CheckOptions, flags: CheckFlagValues): Promise<ExitCode> {
  // Everything is read and checked before any request.
  const syncTimeoutMs = syncTimeoutFlag(opts.syncTimeout);
  const metricsPlan = planMetrics(opts);
  const { access } = metricsPlan;
  let config: { file: string; text: string } | undefined;
  if (opts.config !== undefined) {
    try {
      config = { file: opts.config, text: readFileSync(opts.config, 'utf8') };
    } catch (err) {
      throw new UsageError(`--config ${opts.config}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
  const manifests = await manifestInputs(io, opts);
  const plan = readCheckPlan({ flags, config, namespace: opts.namespace, access, manifests });
  let specs = plan.specs;
  // --health-rules first, then the config's healthRules:, then the config folder's file.
  const readiness = await readinessFromFlags(opts, io.env, plan.healthRules);
  if (specs.length === 0) {
    throw new UsageError('nothing to check', {
      hint: 'give --restart TYPE/NAME, --scale TYPE/NAME=N, --apply -f FILE, --lease NAMESPACE/NAME, --metrics SOURCE, or --config FILE (see --help)',
    });
  }
  if (opts.junit !== undefined) requireFolderOf('--junit', opts.junit);
  const artifacts = opts.artifacts !== undefined ? ArtifactsDir.prepare(opts.artifacts) : undefined;
  let kube: Kube | undefined;
  if (needsCluster(specs)) {
    kube = connect(connectionFlags(opts));
    // Names and reports say which namespace: the context's when -n is not given.
    specs = readCheckSpecs({ flags, config, namespace: kube.connection.namespace, access, manifests });
  }

  const log = (line: string): void => say(io, line);
  log(`checking ${specs.length} thing${specs.length === 1 ? '' : 's'}:`);
  for (const s of specs) log(`  ${s.name}: ${describeSpec(s)}`);
  const report = await runChecks(specs, {
    command,
    signal: io.signal,
    log,
    syncTimeoutMs,
    readiness,
    kube,
    artifacts,
    operatorMetrics: { sources: metricsPlan.sources, access },
    onDone: (run) => {
      const failed = run.results.filter((r) => r.status !== 'passed').length;
      log(`${run.name}: done in ${formatDuration(run.durationMs)}, ${failed === 0 ? 'passed' : `${failed} of ${run.results.length} not passed`}`);
    },
  });

  io.stderr.write(`\n${checkReportText(report)}`);
  if (artifacts) {
    const files = report.checks.flatMap((c) => c.artifacts ?? []);
    log(`${files.length} artifact${files.length === 1 ? '' : 's'} in ${artifacts.dir}${files.length ? ':' : ''}`);
    for (const f of files) log(`  ${f}`);
  }
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
