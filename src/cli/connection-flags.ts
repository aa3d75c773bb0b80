/** kubectl's connection flags, added to every command the same way. */
import { Option, type Command } from 'commander';
import type { ConnectionFlags } from '../kube/index.js';

export function addConnectionFlags(cmd: Command, options: { namespace?: boolean } = {}): Command {
  cmd
    .option('--kubeconfig <file>', 'path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use')
    .option('--cluster <name>', 'the kubeconfig cluster to use')
    .option('--user <name>', 'the kubeconfig user to use')
    .option('-s, --server <url>', 'the address of the Kubernetes API server')
    .option('--token <token>', 'bearer token for authentication to the API server')
    .option('--certificate-authority <file>', 'path to a certificate file for the certificate authority')
    .option('--insecure-skip-tls-verify', 'do not check the server certificate (insecure)')
    .option('--request-timeout <duration>', 'how long to wait for a single request (0 = no limit; e.g. 30s, 1m)', '0')
    .option('--disable-compression', 'do not ask the API server to compress its answers (gzip)');
  if (options.namespace !== false) cmd.option('-n, --namespace <namespace>', "namespace (default: the context's namespace)");
  cmd.addOption(new Option('-v, --v [level]', 'log verbosity; 1 or more prints stack traces of errors').argParser((v) => (v === undefined ? 1 : Number(v))));
  return cmd;
}

export function connectionFlags(options: object): ConnectionFlags {
  const opts = options as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof opts[k] === 'string' ? (opts[k] as string) : undefined);
  return {
    kubeconfig: str('kubeconfig'),
    context: str('context'),
    cluster: str('cluster'),
    user: str('user'),
    server: str('server'),
    token: str('token'),
    certificateAuthority: str('certificateAuthority'),
    insecureSkipTlsVerify: opts.insecureSkipTlsVerify === true ? true : undefined,
    requestTimeout: str('requestTimeout'),
    disableCompression: opts.disableCompression === true ? true : undefined,
    namespace: str('namespace'),
  };
}

/** kubectl accepts -v=2; commander does not, so it is rewritten to --v=2 before parsing. */
export function normaliseArgv(argv: string[]): string[] {
  return argv.map((a) => (/^-v=\d+$/.test(a) ? `--v=${a.slice(3)}` : a));
}

export function verbosity(argv: string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const m = /^(?:--v|-v)=(\d+)$/.exec(a);
    if (m) return Number(m[1]);
    if (a === '-v' || a === '--v') return /^\d+$/.test(argv[i + 1] ?? '') ? Number(argv[i + 1]) : 1;
    if (/^-v\d+$/.test(a)) return Number(a.slice(2));
  }
  return 0;
}
