/** Where the user's readiness rules live. */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The rules file in the user's config folder: $XDG_CONFIG_HOME/informer-trace/health-rules.yaml (~/.config by default). */
export function defaultHealthRulesPath(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'informer-trace', 'health-rules.yaml');
}
