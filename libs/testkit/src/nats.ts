import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createUser } from '@nats-io/nkeys';
import { natsServerPath } from './binaries.js';
import type { CertPair } from './certs.js';
import { freePort } from './ports.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The server config compose runs (ops/nats), plain or with TLS on the client port. */
export const NATS_CONF = {
  plain: `${ROOT}ops/nats/nats.conf`,
  tls: `${ROOT}ops/nats/nats-tls.conf`,
} as const;

/** An NKEY user: the seed its service signs with (NATS_NKEY_SEED, secret) and the public key the server knows. */
export interface NatsUser {
  seed: string;
  publicKey: string;
}

/** A fresh NKEY user key pair (what `npm run nats-keys` prints for a deploy). */
export function natsUserKeys(): NatsUser {
  const pair = createUser();
  return { seed: new TextDecoder().decode(pair.getSeed()), publicKey: pair.getPublicKey() };
}

export interface NatsServerOptions {
  /** NATS_SUBJECT_PREFIX the users' permissions are made for; default a fresh `nats<hex>`. */
  prefix?: string;
  /** Serve TLS (ops/nats/nats-tls.conf) with this certificate and key. */
  tls?: CertPair;
}

/** A nats-server child process on a free loopback port. */
export interface NatsTestServer {
  /** `nats://127.0.0.1:<port>`, or `tls://…` with TLS. */
  readonly url: string;
  readonly port: number;
  /** The nats-server process id (a bench counts its CPU). */
  readonly pid: number | undefined;
  readonly prefix: string;
  readonly gateway: NatsUser;
  readonly backend: NatsUser;
  /** The NATS variables a gateway or backend process needs to use this server. */
  env(service: 'gateway' | 'backend'): Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts nats-server with the very config file compose mounts (ops/nats), with fresh NKEY users
 * for the gateway and the backend and subject permissions made for `prefix`, and resolves once it accepts
 * clients. Tests, the scale-out harness and the replicas bench all get their broker here, so each
 * runs against the authentication and permissions a deploy has.
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsTestServer> {
  const binary = natsServerPath();
  const prefix = options.prefix ?? `nats${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const gateway = natsUserKeys();
  const backend = natsUserKeys();
  const conf = options.tls ? NATS_CONF.tls : NATS_CONF.plain;
  const child = spawn(binary, ['-c', conf, '-a', '127.0.0.1', '-p', String(port)], {
    env: {
      PATH: process.env['PATH'] ?? '',
      NATS_GATEWAY_NKEY: gateway.publicKey,
      NATS_BACKEND_NKEY: backend.publicKey,
      ...natsSubjectVariables(prefix),
      ...(options.tls ? { NATS_TLS_CERT: options.tls.cert, NATS_TLS_KEY: options.tls.key } : {}),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  let log = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`nats-server was not ready within 10 s\n${log}`));
    }, 10_000);
    child.stderr.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString('utf8')).slice(-8_192);
      if (log.includes('Server is ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited with ${String(code)} before it was ready\n${log}`));
    });
  });
  const url = `${options.tls ? 'tls' : 'nats'}://127.0.0.1:${port}`;
  return {
    url,
    port,
    pid: child.pid,
    prefix,
    gateway,
    backend,
    env: (service) => {
      const u = service === 'gateway' ? gateway : backend;
      return { NATS_URL: url, NATS_SUBJECT_PREFIX: prefix, NATS_NKEY_SEED: u.seed };
    },
    stop: async () => {
      process.removeListener('exit', kill);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(kill, 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The subject variables of ops/nats/nats.conf for a stack whose NATS_SUBJECT_PREFIX is `prefix` (compose derives the same). */
export function natsSubjectVariables(prefix: string): Record<string, string> {
  return {
    NATS_COMMAND_SUBJECTS: `${prefix}.botlink.commands.>`,
    NATS_REPLY_SUBJECTS: `${prefix}.botlink.replies.>`,
    NATS_GAME_EVENT_SUBJECTS: `${prefix}.game.*.events`,
  };
}
