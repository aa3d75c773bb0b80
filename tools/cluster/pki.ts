/**
 * Certificates and keys for the local control plane, made with the openssl command line: a CA, the
 * API server's serving certificate, one client certificate per identity, and the service-account
 * signing key pair.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ClientIdentity {
  /** File stem: `<dir>/<file>.crt`. */
  file: string;
  /** Common name: the user name the API server sees. */
  user: string;
  /** Organisations: the groups. */
  groups: string[];
}

async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await run('openssl', args, { cwd });
  } catch (err) {
    const e = err as { code?: string; stderr?: string };
    if (e.code === 'ENOENT') throw new Error('openssl is not on PATH; it is needed to make the local cluster certificates');
    throw new Error(`openssl ${args[0]} failed: ${(e.stderr ?? String(err)).trim()}`);
  }
}

export async function makeCa(dir: string): Promise<void> {
  if (existsSync(join(dir, 'ca.crt'))) return;
  await openssl(['genrsa', '-out', 'ca.key', '2048'], dir);
  await openssl(['req', '-x509', '-new', '-nodes', '-key', 'ca.key', '-subj', '/CN=informer-trace-local-ca', '-days', '3650', '-out', 'ca.crt'], dir);
}

async function signed(dir: string, stem: string, subject: string, ext: string): Promise<void> {
  if (existsSync(join(dir, `${stem}.crt`))) return;
  const extFile = `${stem}.ext`;
  await writeFile(join(dir, extFile), ext);
  await openssl(['genrsa', '-out', `${stem}.key`, '2048'], dir);
  await openssl(['req', '-new', '-key', `${stem}.key`, '-subj', subject, '-out', `${stem}.csr`], dir);
  await openssl(
    ['x509', '-req', '-in', `${stem}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '3650', '-out', `${stem}.crt`, '-extfile', extFile],
    dir,
  );
}

export async function makeServingCert(dir: string): Promise<void> {
  await signed(
    dir,
    'apiserver',
    '/CN=kube-apiserver',
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.96.0.1',
      '',
    ].join('\n'),
  );
}

export async function makeClientCert(dir: string, id: ClientIdentity): Promise<void> {
  const subject = `/CN=${id.user}${id.groups.map((g) => `/O=${g}`).join('')}`;
  await signed(dir, id.file, subject, ['basicConstraints=CA:FALSE', 'keyUsage=digitalSignature,keyEncipherment', 'extendedKeyUsage=clientAuth', ''].join('\n'));
}

export async function makeServiceAccountKeys(dir: string): Promise<void> {
  if (existsSync(join(dir, 'sa.key'))) return;
  await openssl(['genrsa', '-out', 'sa.key', '2048'], dir);
  await openssl(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
}
