/**
 * The checks of one run, from the flags and a config file together, each read and checked before
 * anything is sent. No two may share a name: reports, JUnit test cases and progress lines tell
 * checks apart by it, and this is the one place that says so.
 */
import { UsageError } from '../errors.js';
import { configError, readConfig, type ConfigChecks, type PlacedSpec } from './config.js';
import { specsFromFlags, type CheckFlagValues, type ManifestInputs } from './flags.js';
import type { CheckSpec, MetricsAccess } from './types.js';

export interface SpecInputs {
  flags: CheckFlagValues;
  /** --config: the file's path and text. */
  config?: { file: string; text: string } | undefined;
  /** -n, or the context's; undefined: each check uses the context's later. */
  namespace: string | undefined;
  /** The --metrics-* flags; a queue check's own keys override them. */
  access: MetricsAccess;
  /** How apply checks read their manifests (stdin, -n as given); the files, without -n, by default. */
  manifests?: ManifestInputs | undefined;
}

/** Every check the flags and the file ask for; a UsageError naming each problem otherwise. */
export function readCheckSpecs(inputs: SpecInputs): CheckSpec[] {
  return readCheckPlan(inputs).specs;
}

/** readCheckSpecs, and the readiness rules file the config names (`healthRules:`), if any. */
export function readCheckPlan(inputs: SpecInputs): { specs: CheckSpec[]; healthRules: string | undefined } {
  const { namespace, access, manifests } = inputs;
  const placed: PlacedSpec[] = specsFromFlags(inputs.flags, namespace, access, manifests).map((spec) => ({ spec }));
  const fromFile = inputs.config ? readConfig(inputs.config.text, inputs.config.file, { namespace, access, manifests }) : undefined;
  if (fromFile) placed.push(...fromFile.checks);
  rejectDuplicateNames(placed, fromFile);
  return { specs: placed.map((p) => p.spec), healthRules: fromFile?.healthRules };
}

/**
 * Two checks of the file with one name are a problem of the file, at the later one, refused with
 * its other problems; a name the flags and the file (or two flags) share is refused after those.
 */
function rejectDuplicateNames(placed: readonly PlacedSpec[], fromFile: ConfigChecks | undefined): void {
  const first = new Map<string, PlacedSpec>();
  let shared: string | undefined;
  for (const p of placed) {
    const before = first.get(p.spec.name);
    if (!before) {
      first.set(p.spec.name, p);
    } else if (fromFile && before.path !== undefined && p.path !== undefined) {
      const { line = 1, column = 1 } = p.spec.origin;
      fromFile.problems.push({
        line,
        column,
        path: `${p.path}.name`,
        message: `"${p.spec.name}" is also the name of ${before.path}: give one of them a different name`,
      });
    } else {
      shared ??= p.spec.name;
    }
  }
  if (fromFile && fromFile.problems.length > 0) throw configError(fromFile.file, fromFile.problems);
  if (shared !== undefined) {
    throw new UsageError(`two checks are named "${shared}"`, { hint: "give the config file's checks a distinct name:, or drop the duplicate flag" });
  }
}
