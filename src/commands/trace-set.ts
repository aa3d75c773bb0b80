/**
 * `kubectl informer-trace --apply -f DIR`: a set of objects (a folder, a chart's rendered output,
 * a kustomization, several `-f`) applied and traced at once (SetSession), each to its readiness;
 * at the end, the diagnosis of each object that failed or was not ready in time.
 *
 * table: each apply as kubectl says it, each hop with its object as it comes, each object as it
 * settles, then a table of the objects and the summary; ndjson: the same as events, a line each;
 * json/yaml: `{ summary, objects }` at the end.
 */
import { say, type CommandIO } from '../cli/io.js';
import { diagnoseSetMember, diagnoseSetMembers, diagnosisText } from '../diagnose/index.js';
import { ExitCode } from '../exit-codes.js';
import type { Kube } from '../kube/index.js';
import { ndjsonWriter, renderStructured } from '../output/format.js';
import { renderTable } from '../output/table.js';
import type { Readiness } from '../readiness/index.js';
import {
  APPLY_FIELD_MANAGER,
  memberLabel,
  memberStatus,
  type SetEvent,
  type SetInput,
  type SetMember,
  type SetSelection,
  SetSession,
  watchingText,
} from '../trace/index.js';
import { formatDuration } from '../util/duration.js';
import { escapeTerminal } from '../util/escape.js';
import { setObjectView, setSummaryLines, summariseSet, type SetReport } from '../view/set-view.js';
import { hopLine } from '../view/trace-view.js';
import type { DiagnosisFeed } from '../tui/trace-app.js';

export type SetOutput = 'tui' | 'table' | 'json' | 'yaml' | 'ndjson';

export interface SetPlan {
  output: SetOutput;
  /** tui: leave the screen when the set ends. */
  exitOnEnd: boolean;
  timeoutMs: number;
  syncTimeoutMs: number;
  coalesceMs: number;
  settleMs: number;
  failFast: boolean;
  /** --watch -f: write nothing; trace the next change someone else makes to the objects. */
  watch: boolean;
  /** --watch -l: the objects are those the labels select (no inputs). */
  select?: SetSelection | undefined;
}

interface SetSink {
  event(e: SetEvent): void;
  end(report: SetReport): void;
}

const objectRef = (m: SetMember): { apiVersion: string; kind: string; namespace?: string; name: string } => ({
  apiVersion: m.apiVersion,
  kind: m.kind,
  ...(m.namespace ? { namespace: m.namespace } : {}),
  name: m.name,
});

function setSink(output: SetOutput, io: CommandIO, startedAt: () => number | undefined): SetSink {
  const out = (line: string): void => void io.stdout.write(`${escapeTerminal(line)}\n`);
  switch (output) {
    case 'table':
      return {
        event(e) {
          if (e.type === 'watching') return;
          const label = memberLabel(e.member);
          if (e.type === 'applied') out(`${label} ${e.member.applied ?? 'applied'}`);
          else if (e.type === 'changed') out(`${label} ${e.member.applied === 'created' ? 'created' : 'changed'}`);
          else if (e.type === 'refused') out(`${label} refused: ${e.member.message ?? ''}`);
          else if (e.type === 'trace' && e.event.type === 'hop') out(`  ${label}  ${hopLine(e.event.hop)}`);
          else if (e.type === 'settled') {
            const since = startedAt();
            const m = e.member;
            const when = m.readyAt !== undefined && m.appliedAt !== undefined ? ` in ${formatDuration(m.readyAt - m.appliedAt)}` : '';
            const at = since !== undefined ? ` (+${formatDuration(e.at - since)})` : '';
            out(
              `${label} ${m.state === 'no-readiness' ? 'applied (no readiness to wait for)' : `${m.state.replace('-', ' ')}${when}`}${at}${m.verdict ? `  ${m.verdict.detail}` : ''}`,
            );
          }
        },
        end(report) {
          const rows = report.objects.map((o) => [
            o.object,
            o.namespace ?? '',
            o.apply,
            o.status,
            o.readyMs !== undefined ? formatDuration(o.readyMs) : '',
            o.rule ?? '',
          ]);
          io.stdout.write(
            `\n${renderTable(
              ['OBJECT', 'NAMESPACE', 'APPLY', 'STATUS', 'READY IN', 'RULE'],
              rows.map((r) => r.map((c) => escapeTerminal(c))),
            )}\n`,
          );
          for (const l of setSummaryLines(report.summary)) out(l);
          for (const o of report.objects) if (o.diagnosis) io.stdout.write(`\n${o.object}: ${diagnosisText(o.diagnosis)}`);
        },
      };
    case 'ndjson': {
      const line = ndjsonWriter(io.stdout);
      return {
        event(e) {
          if (e.type === 'watching') return line({ type: 'watching', at: e.at });
          const object = objectRef(e.member);
          if (e.type === 'applied') line({ type: 'applied', object, apply: e.member.applied, at: e.at });
          else if (e.type === 'changed') line({ type: 'changed', object, apply: e.member.applied, at: e.at });
          else if (e.type === 'joined') line({ type: 'joined', object, at: e.at });
          else if (e.type === 'refused') line({ type: 'refused', object, message: e.member.message });
          else if (e.type === 'trace') line({ ...e.event, object });
          else
            line({
              type: 'settled',
              object,
              state: e.member.state,
              status: memberStatus(e.member),
              ...(e.member.verdict ? { rule: e.member.verdict.rule, detail: e.member.verdict.detail } : {}),
            });
        },
        end: (report) => line({ type: 'summary', summary: report.summary, objects: report.objects }),
      };
    }
    case 'json':
    case 'yaml':
      return { event: () => undefined, end: (report) => void io.stdout.write(renderStructured(report, output)) };
    case 'tui':
      // The screen is gone by the end (it ran on the alternate screen): the summary, and where each object not ready is stuck.
      return {
        event: () => undefined,
        end(report) {
          for (const l of setSummaryLines(report.summary)) say(io, l);
          for (const o of report.objects) if (o.diagnosis) io.stderr.write(`${o.object}: ${diagnosisText(o.diagnosis)}`);
        },
      };
  }
}

/** The diagnosis of an object's chain on `d` in the TUI. */
function diagnosesOf(kube: Kube, readiness: Readiness): (m: SetMember) => DiagnosisFeed {
  return (m) => ({
    diagnose: () => diagnoseSetMember(kube, readiness, m),
    subscribe: () => () => undefined,
  });
}

/** Applies and traces the set; resolves the exit code: 0 when every object is ready (or has no readiness), 1 otherwise. */
export async function runTraceSet(io: CommandIO, kube: Kube, readiness: Readiness, inputs: SetInput[], plan: SetPlan): Promise<ExitCode> {
  const log = (line: string): void => say(io, line);
  const set = new SetSession({
    kube,
    readiness,
    inputs,
    defaultNamespace: kube.connection.namespace,
    timeoutMs: plan.timeoutMs,
    syncTimeoutMs: plan.syncTimeoutMs,
    coalesceMs: plan.coalesceMs,
    settleMs: plan.settleMs,
    failFast: plan.failFast,
    watch: plan.watch,
    select: plan.select,
    signal: io.signal,
    onInformerEvent: (e) => {
      if (e.level === 'warning' || e.level === 'error') log(`${e.level}: ${e.message}`);
    },
  });
  const sink = setSink(plan.output, io, () => set.startedAt);
  set.subscribe((e) => sink.event(e));
  const timeout = formatDuration(plan.timeoutMs);
  if (!plan.watch) log(`applying ${inputs.length} objects (server-side, field manager ${APPLY_FIELD_MANAGER}); timeout ${timeout}`);
  // Said once every baseline is taken: a change made after this line is traced.
  set.subscribe((e) => {
    if (e.type === 'watching') log(`${watchingText(set.members.length, plan.select, kube.connection.namespace)} for a change (timeout ${timeout})…`);
  });
  try {
    if (plan.output === 'tui') {
      const running = set.run();
      const { runSetTui } = await import('../tui/set-app.js');
      const left = await runSetTui(set, running, io, { signal: io.signal, exitOnEnd: plan.exitOnEnd, diagnosesOf: diagnosesOf(kube, readiness) });
      if (left !== 'ended') set.stop('interrupted');
      await running;
    } else await set.run();
    const snaps = set.snapshots();
    const diagnoses = await diagnoseSetMembers(kube, readiness, set.members, log);
    const interrupted = io.signal.aborted;
    const report: SetReport = {
      summary: { ...summariseSet(set.members, snaps, set.startedAt, interrupted), informers: set.informerCount() },
      objects: set.members.map((m) => setObjectView(m, snaps.get(m), diagnoses.get(m))),
    };
    sink.end(report);
    if (interrupted) return ExitCode.Interrupted;
    return report.summary.outcome === 'ready' ? ExitCode.Ok : ExitCode.CheckFailed;
  } finally {
    set.close();
  }
}
