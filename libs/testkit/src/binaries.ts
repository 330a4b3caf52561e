import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The environment the resolvers read (PATH and the override variables); `process.env` by default. */
export type BinaryEnv = Readonly<Record<string, string | undefined>>;

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first executable `command` on the PATH of `env`, as `which` finds it; undefined when none. */
export function findOnPath(command: string, env: BinaryEnv = process.env): string | undefined {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, command);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** Names a Chromium build goes by on PATH (Debian, other distributions, Google's build), in the order tried. */
export const CHROMIUM_COMMANDS = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'] as const;

/**
 * The Chromium the browser tests drive: CHROMIUM_PATH when set (it must be executable: a wrong
 * override is an error, not a silent fallback), else the first of CHROMIUM_COMMANDS on PATH;
 * undefined when there is none. Never a path written into a test.
 */
export function findChromium(env: BinaryEnv = process.env): string | undefined {
  const given = env['CHROMIUM_PATH'];
  if (given) {
    if (!isExecutable(given)) throw new Error(`CHROMIUM_PATH=${given} is not an executable file`);
    return given;
  }
  for (const command of CHROMIUM_COMMANDS) {
    const found = findOnPath(command, env);
    if (found) return found;
  }
  return undefined;
}

/** findChromium, or an error that says how to provide one (what `npm test` installs as root). */
export function chromiumPath(env: BinaryEnv = process.env): string {
  const found = findChromium(env);
  if (!found) {
    throw new Error(
      `no Chromium: none of ${CHROMIUM_COMMANDS.join(', ')} is on PATH and CHROMIUM_PATH is unset (apt-get install chromium, or set CHROMIUM_PATH)`,
    );
  }
  return found;
}

/** Debian installs nats-server in /usr/sbin, which is not on a non-root PATH. */
const NATS_SERVER_FALLBACK = '/usr/sbin/nats-server';

/** The nats-server binary: NATS_SERVER when set, else on PATH, else Debian's /usr/sbin one; undefined when none. */
export function findNatsServer(env: BinaryEnv = process.env): string | undefined {
  const given = env['NATS_SERVER'];
  if (given) {
    if (!isExecutable(given)) throw new Error(`NATS_SERVER=${given} is not an executable file`);
    return given;
  }
  return findOnPath('nats-server', env) ?? (isExecutable(NATS_SERVER_FALLBACK) ? NATS_SERVER_FALLBACK : undefined);
}

/** findNatsServer, or an error that says how to provide one. */
export function natsServerPath(env: BinaryEnv = process.env): string {
  const found = findNatsServer(env);
  if (!found) throw new Error('no nats-server on PATH or in /usr/sbin (apt-get install nats-server, or set NATS_SERVER)');
  return found;
}
