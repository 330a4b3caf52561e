import { execFileSync } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM file paths of one certificate and its key. */
export interface CertPair {
  cert: string;
  key: string;
}

/** The bot-link certificate set: a CA, the gateway's server pair and the bot's client pair. */
export interface DevCerts {
  ca: CertPair;
  gateway: CertPair;
  bot: CertPair;
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function serial(): string {
  return `0x${randomBytes(16)
    .toString('hex')
    .replace(/^[89a-f]/, '1')}`;
}

/** Makes a self-signed CA (P-256) valid for `days`. */
export function makeCa(dir: string, name: string, days = 3650): CertPair {
  mkdirSync(dir, { recursive: true });
  const pair = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    pair.key,
    '-out',
    pair.cert,
    '-days',
    String(days),
    '-set_serial',
    serial(),
    '-subj',
    `/O=wordgame dev/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return pair;
}

export interface LeafOptions {
  /** Certificate subject CN; the gateway logs it to identify the bot. */
  commonName: string;
  /** Extended key usage: serverAuth, clientAuth, or `none` (no extension at all; for tests). */
  usage: 'server' | 'client' | 'none';
  /** subjectAltName entries, e.g. ['DNS:localhost', 'IP:127.0.0.1']. */
  altNames?: string[];
  /** Validity in days; a negative value makes an already-expired certificate (for tests). */
  days?: number;
}

/** Issues a P-256 leaf certificate signed by `ca`. */
export function issueLeaf(dir: string, name: string, ca: CertPair, options: LeafOptions): CertPair {
  mkdirSync(dir, { recursive: true });
  const pair = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  const work = mkdtempSync(join(tmpdir(), 'certs-'));
  try {
    const csr = join(work, 'leaf.csr');
    const ext = join(work, 'leaf.ext');
    openssl([
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      pair.key,
      '-out',
      csr,
      '-subj',
      `/O=wordgame dev/CN=${options.commonName}`,
    ]);
    const lines = ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature,keyAgreement'];
    if (options.usage !== 'none') lines.push(`extendedKeyUsage=${options.usage === 'server' ? 'serverAuth' : 'clientAuth'}`);
    if (options.altNames?.length) lines.push(`subjectAltName=${options.altNames.join(',')}`);
    writeFileSync(ext, `${lines.join('\n')}\n`);
    const days = options.days ?? 825;
    if (days > 0) {
      openssl([
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        ca.cert,
        '-CAkey',
        ca.key,
        '-set_serial',
        serial(),
        '-days',
        String(days),
        '-out',
        pair.cert,
        '-extfile',
        ext,
      ]);
    } else {
      // `openssl x509 -req` cannot backdate; `openssl ca` can, through a throwaway CA database.
      const cnf = join(work, 'ca.cnf');
      writeFileSync(join(work, 'index.txt'), '');
      writeFileSync(join(work, 'serial'), `${randomBytes(8).toString('hex')}\n`);
      writeFileSync(
        cnf,
        [
          '[ca]',
          'default_ca=d',
          '[d]',
          `database=${join(work, 'index.txt')}`,
          `new_certs_dir=${work}`,
          `serial=${join(work, 'serial')}`,
          'default_md=sha256',
          'policy=p',
          '[p]',
          'commonName=supplied',
          'organizationName=optional',
          '',
        ].join('\n'),
      );
      openssl([
        'ca',
        '-batch',
        '-notext',
        '-config',
        cnf,
        '-cert',
        ca.cert,
        '-keyfile',
        ca.key,
        '-in',
        csr,
        '-out',
        pair.cert,
        '-extfile',
        ext,
        '-startdate',
        '20200101000000Z',
        '-enddate',
        '20200102000000Z',
      ]);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return pair;
}

/** Subject CN of the dev bot's client certificate: the dev stack's BOTLINK_ALLOWED_CLIENTS. */
export const DEV_BOT_CLIENT_NAME = 'bot';

/** The containers' user (every Dockerfile's `USER 10001:10001`): the per-service keys must be readable by it. */
export const CONTAINER_UID = 10001;

/** One service's mount folder as docker-compose.yml mounts it at /certs. */
export interface ServiceCertDir {
  dir: string;
  cert: string;
  key: string;
  ca: string;
}

/**
 * Lays out what each container mounts, and nothing more: `<dir>/<service>/{tls.crt,tls.key,ca.crt}`
 * for the gateway and the bot, so the CA key never enters a container. Certificates are 0644; a key
 * is 0640 with group CONTAINER_UID when this process may chown (root, as CI runs), else 0644 — a dev
 * key has to be readable by a container user the host does not know (docs/operating/deploy.md
 * chowns real keys instead). Rewrites the layout from the flat pairs each time (cheap, idempotent).
 */
export function writeServiceCertDirs(dir: string, certs: DevCerts): Record<'gateway' | 'bot', ServiceCertDir> {
  const asRoot = process.getuid?.() === 0;
  const layout = (service: 'gateway' | 'bot'): ServiceCertDir => {
    const target = join(dir, service);
    mkdirSync(target, { recursive: true, mode: 0o755 });
    chmodSync(target, 0o755);
    const out = { dir: target, cert: join(target, 'tls.crt'), key: join(target, 'tls.key'), ca: join(target, 'ca.crt') };
    copyFileSync(certs[service].cert, out.cert);
    copyFileSync(certs.ca.cert, out.ca);
    copyFileSync(certs[service].key, out.key);
    chmodSync(out.cert, 0o644);
    chmodSync(out.ca, 0o644);
    if (asRoot) {
      chownSync(out.key, 0, CONTAINER_UID);
      chmodSync(out.key, 0o640);
    } else chmodSync(out.key, 0o644);
    return out;
  };
  return { gateway: layout('gateway'), bot: layout('bot') };
}

/**
 * Makes the dev certificate set under `dir` (default `.data/certs`): a CA, the gateway's server
 * certificate (localhost, 127.0.0.1, ::1, gateway) and the bot's client certificate (CN `bot`),
 * plus the per-service folders the compose containers mount ({@link writeServiceCertDirs}).
 * Idempotent: when every pair is present no key is remade and `created` is false.
 */
export function ensureDevCerts(dir = '.data/certs'): DevCerts & { created: boolean } {
  const names = ['ca', 'gateway', 'bot'] as const;
  const pairs = Object.fromEntries(
    names.map((n) => [n, { cert: join(dir, `${n}.crt`), key: join(dir, `${n}.key`) }]),
  ) as unknown as DevCerts;
  const present = names.every((n) => existsSync(pairs[n].cert) && existsSync(pairs[n].key));
  if (present) {
    writeServiceCertDirs(dir, pairs);
    return { ...pairs, created: false };
  }
  const ca = makeCa(dir, 'ca');
  const gateway = issueLeaf(dir, 'gateway', ca, {
    commonName: 'gateway',
    usage: 'server',
    altNames: ['DNS:localhost', 'DNS:gateway', 'IP:127.0.0.1', 'IP:::1'],
  });
  const bot = issueLeaf(dir, 'bot', ca, { commonName: DEV_BOT_CLIENT_NAME, usage: 'client' });
  writeServiceCertDirs(dir, { ca, gateway, bot });
  return { ca, gateway, bot, created: true };
}

/** The NATS server's folder as the Kubernetes overlays mount it (Secret `nats-tls`, ca.crt also as `nats-ca`). */
export interface NatsCertDir {
  dir: string;
  cert: string;
  key: string;
  ca: string;
}

/**
 * Makes the NATS server's certificate (serverAuth, CN and DNS name `nats`: the Service name the
 * gateways and backends dial as `tls://nats:4222`) from the CA that {@link ensureDevCerts} keeps in
 * `dir`, laid out as `<dir>/nats/{tls.crt,tls.key,ca.crt}` with the key's modes of
 * {@link writeServiceCertDirs}. Idempotent: an existing pair the CA signed is kept; the CA must already be there.
 */
export function ensureNatsCert(dir = '.data/certs'): NatsCertDir & { created: boolean } {
  const ca = { cert: join(dir, 'ca.crt'), key: join(dir, 'ca.key') };
  if (!existsSync(ca.cert) || !existsSync(ca.key)) throw new Error(`no CA in ${dir}: make the dev certificates first (ensureDevCerts)`);
  const target = join(dir, 'nats');
  const out = { dir: target, cert: join(target, 'tls.crt'), key: join(target, 'tls.key'), ca: join(target, 'ca.crt') };
  // Remade when missing or signed by another CA (ensureDevCerts remakes the CA when its set is incomplete).
  const created = !(
    existsSync(join(dir, 'nats.crt')) &&
    existsSync(join(dir, 'nats.key')) &&
    new X509Certificate(readFileSync(join(dir, 'nats.crt'))).verify(new X509Certificate(readFileSync(ca.cert)).publicKey)
  );
  if (created) issueLeaf(dir, 'nats', ca, { commonName: 'nats', usage: 'server', altNames: ['DNS:nats', 'DNS:localhost', 'IP:127.0.0.1'] });
  mkdirSync(target, { recursive: true, mode: 0o755 });
  chmodSync(target, 0o755);
  copyFileSync(join(dir, 'nats.crt'), out.cert);
  copyFileSync(join(dir, 'nats.key'), out.key);
  copyFileSync(ca.cert, out.ca);
  chmodSync(out.cert, 0o644);
  chmodSync(out.ca, 0o644);
  if (process.getuid?.() === 0) {
    chownSync(out.key, 0, CONTAINER_UID);
    chmodSync(out.key, 0o640);
  } else chmodSync(out.key, 0o644);
  return { ...out, created };
}
