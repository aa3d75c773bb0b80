/**
 * `kubectl informer-trace health`: what the readiness engine says of objects, without a change.
 * `-f FILE|DIR|-` judges objects in files, with no cluster (a template's objects as they are, even
 * without a namespace or a name); `TYPE[/NAME]` judges live ones. One row per object, in input
 * order: its status (Current, InProgress, Failed, Suspended, Terminating, Unknown), the rule that
 * decided and its file, and what the status says. `--explain` adds every rule consulted. Exit 0
 * when every object is Current, 1 when one is not or there are none, 2 for bad input, 3 when the
 * cluster cannot be read.
 */
import { Command, Option } from 'commander';
import { addConnectionFlags, connectionFlags } from '../cli/connection-flags.js';
import { colorEnabled, readStdin, type CommandIO } from '../cli/io.js';
import { readObjectFiles, type SourcedObject } from '../cli/object-files.js';
import { collectItems, mergedOptions, requireOneNamespaceScope } from '../cli/options.js';
import { addReadinessFlags, readinessFromFlags, type ReadinessFlagValues } from '../cli/readiness-flags.js';
import { CheckFailedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { apiVersionOf, connect, isNotFound, resourcePath, ResourceListerWatcher, type Kube, type KubeObject } from '../kube/index.js';
import { renderStructured } from '../output/format.js';
import { renderTable, styled } from '../output/table.js';
import { type Consultation, groupOf, type Readiness, type ReadinessStatus } from '../readiness/index.js';
import { escapeTerminal } from '../util/escape.js';
import { splitTarget } from './trace.js';

interface HealthOptions extends ReadinessFlagValues {
  filename: string[];
  recursive?: boolean;
  output: 'table' | 'json' | 'yaml';
  explain?: boolean;
  allNamespaces?: boolean;
  selector?: string;
  namespace?: string;
}

/** One object's verdict, as every format prints it. */
export interface HealthRow {
  apiVersion: string;
  kind: string;
  namespace: string | null;
  name: string | null;
  status: ReadinessStatus;
  rule: string;
  rulesFile: string | null;
  detail: string;
  /** Where a file's object came from: `app.yaml: document 2`. */
  source?: string;
  explain?: Consultation[];
}

const COLOUR: Partial<Record<ReadinessStatus, string>> = { Current: '32', Failed: '31', Suspended: '33', InProgress: '36' };

export function createHealthCommand(io: CommandIO, setExitCode: (code: ExitCode) => void): Command {
  const cmd = new Command('health')
    .description(
      'no write: is each object ready, in progress, failed or suspended, by the rules a trace, diagnose and check use — objects in files (-f) or live (TYPE[/NAME]); exit 0 when every one is Current, 1 when one is not',
    )
    .argument('[target]', 'TYPE or TYPE/NAME of live objects (deployment, deploy/web, certificates.cert-manager.io)')
    .argument('[name]', 'NAME, when the target is given as TYPE NAME')
    .option(
      '-f, --filename <file>',
      'judge the objects in FILE, a folder of them, or - for stdin, without a cluster (repeatable, or comma-separated as kubectl takes them)',
      collectItems,
      [],
    )
    .option('-R, --recursive', "-f: read a folder's subfolders too")
    .addOption(new Option('-o, --output <format>', 'output format; json is a list of the rows').choices(['table', 'json', 'yaml']).default('table'))
    .option('--explain', 'show every rule consulted for each object, and why each did or did not decide')
    .option('-A, --all-namespaces', 'live objects of every namespace')
    .option('-l, --selector <selector>', 'live objects with these labels, e.g. app.kubernetes.io/instance=shop')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  helm template shop ./chart | kubectl informer-trace health -f -',
        '  kubectl informer-trace health certificates -n shop',
        '  kubectl informer-trace health rollout/web -n shop --explain',
        '  kubectl informer-trace health -f app.yaml --health-rules rules.yaml -o json',
        '',
      ].join('\n'),
    );
  addReadinessFlags(cmd);
  addConnectionFlags(cmd);
  cmd.action(async (first: string | undefined, second: string | undefined, _o: unknown, command: Command) => {
    const opts = mergedOptions<HealthOptions & Record<string, unknown>>(command);
    if (opts.filename.length > 0 && first !== undefined) throw new UsageError('give objects either with -f or as TYPE[/NAME], not both');
    if (opts.filename.length === 0 && first === undefined)
      throw new UsageError('nothing to judge', { hint: 'give -f FILE|DIR|- or TYPE[/NAME], e.g. health -f app.yaml' });
    requireOneNamespaceScope(opts);
    if (opts.filename.length > 0 && (opts.allNamespaces || opts.selector !== undefined))
      throw new UsageError('-A and -l select live objects; they do not go with -f');
    const stdin = opts.filename.includes('-') ? await readStdin(io) : undefined;
    const objects = opts.filename.length > 0 ? readObjectFiles(opts.filename, { recursive: opts.recursive === true, stdin }) : undefined;
    const readiness = await readinessFromFlags(opts, io.env);
    const judged = objects ?? (await liveObjects(connect(connectionFlags(opts)), first!, second, opts));
    await readiness.prepare(judged.map((o) => ({ group: groupOf(o.obj.apiVersion), kind: o.obj.kind ?? '' })));
    const rows = judged.map((o) => rowOf(readiness, o, opts.explain === true));
    if (rows.length === 0) {
      // As `kubectl wait` has it: a selector or a file that matched nothing is not "all ready".
      if (opts.output !== 'table') io.stdout.write(renderStructured([], opts.output));
      io.stderr.write('no objects found: nothing to judge\n');
      setExitCode(ExitCode.CheckFailed);
      return;
    }
    if (opts.output === 'table') io.stdout.write(healthTable(rows, { explain: opts.explain === true, colour: colorEnabled(io) }));
    else io.stdout.write(renderStructured(rows, opts.output));
    setExitCode(rows.every((r) => r.status === 'Current') ? ExitCode.Ok : ExitCode.CheckFailed);
  });
  return cmd;
}

/** The live objects TYPE[/NAME] names, in the order the server lists them. */
async function liveObjects(kube: Kube, first: string, second: string | undefined, opts: HealthOptions): Promise<SourcedObject[]> {
  const named = first.includes('/') || second !== undefined ? splitTarget(first, second) : undefined;
  const info = await kube.discovery.resolve(named?.type ?? first);
  const namespace = info.namespaced && !opts.allNamespaces ? kube.connection.namespace : undefined;
  const isSecret = info.group === '' && info.resource === 'secrets';
  if (named) {
    if (opts.selector !== undefined) throw new UsageError('-l selects among many objects; it does not go with a NAME');
    try {
      const obj = await kube.client.json<KubeObject>(resourcePath(info, namespace, named.name), {
        describe: { verb: 'get', resource: info.resource, namespace, name: named.name },
        ...(isSecret ? { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' } : {}),
      } as never);
      return [{ obj: { ...obj, kind: info.kind, apiVersion: apiVersionOf(info) }, file: '', document: 0 }];
    } catch (err) {
      if (isNotFound(err)) throw new CheckFailedError(`${info.resource} "${named.name}" not found${namespace ? ` in namespace ${namespace}` : ''}`);
      throw err;
    }
  }
  // Secrets are listed as metadata only: their data is never fetched.
  const lw = new ResourceListerWatcher(kube.client, info, { namespace, labelSelector: opts.selector, metadataOnly: isSecret, deferSpecStatus: false });
  const list = await lw.list({});
  return list.items.map((obj) => ({ obj: isSecret ? { ...obj, kind: info.kind, apiVersion: apiVersionOf(info) } : obj, file: '', document: 0 }));
}

function rowOf(readiness: Readiness, o: SourcedObject, explain: boolean): HealthRow {
  const { verdict, consulted } = explain ? readiness.explain(o.obj) : { verdict: readiness.judge(o.obj), consulted: undefined };
  return {
    apiVersion: o.obj.apiVersion ?? '',
    kind: o.obj.kind ?? '',
    namespace: o.obj.metadata?.namespace ?? null,
    name: o.obj.metadata?.name ?? null,
    status: verdict.status,
    rule: verdict.rule,
    rulesFile: verdict.source ?? null,
    detail: verdict.detail,
    ...(o.file ? { source: `${o.file}: document ${o.document}` } : {}),
    ...(consulted ? { explain: consulted } : {}),
  };
}

export function healthTable(rows: HealthRow[], o: { explain: boolean; colour: boolean }): string {
  const body = rows.map((r) => [
    r.apiVersion,
    r.kind,
    r.namespace ?? '',
    r.name ?? '',
    styled(r.status, o.colour ? COLOUR[r.status] : undefined),
    r.rule,
    r.rulesFile ?? '',
    r.detail,
  ]);
  const table = renderTable(['APIVERSION', 'KIND', 'NAMESPACE', 'NAME', 'STATUS', 'RULE', 'RULES FILE', 'DETAIL'], body);
  if (!o.explain) return `${table}\n`;
  const lines = [table];
  for (const r of rows) {
    lines.push(escapeTerminal(`${r.kind}/${r.name ?? '(no name)'}${r.namespace ? ` in ${r.namespace}` : ''}:`));
    for (const c of r.explain ?? [])
      lines.push(escapeTerminal(`  ${c.decided ? '→' : '·'} ${c.layer}${c.rule ? ` ${c.rule}` : ''}${c.source ? ` (${c.source})` : ''}: ${c.why}`));
  }
  return `${lines.join('\n')}\n`;
}
