import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The dev stack's credentials file inside its data folder (`.data/stack.env`, mode 0600). */
export const STACK_ENV_FILE = 'stack.env';

/**
 * The variable that opts a command into the dev stack's credentials: the data folder whose
 * `stack.env` it reads. The backend's npm scripts set it (default `.data`); the commands bundled in
 * the images never do, so production takes its environment alone.
 */
export const DEV_STACK_DIR = 'DEV_STACK_DIR';

/** The variable in stack.env naming the process that wrote it (the running `npm start`). */
export const DEV_STACK_PID = 'DEV_STACK_PID';

/** A folder (PGlite's data) held by another live process. */
export class FolderInUseError extends Error {
  override readonly name = 'FolderInUseError';
  constructor(
    readonly folder: string,
    readonly pid: number,
    readonly holder: string,
  ) {
    super(
      `${folder} is open in process ${pid} (${holder}); PGlite allows one process per folder, a second one would write beside it and lose the writes. ` +
        'While `npm start` runs, run the backend commands through their npm scripts (npm run operator:create|reconcile|audit|migrate -w apps/backend), ' +
        'which connect to the stack with the DATABASE_URL in .data/stack.env; or stop that process first.',
    );
  }
}

/** True while a process with this id exists (EPERM: it exists, owned by someone else). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err: unknown) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface LockBody {
  pid: number;
  holder: string;
}

/**
 * Claims `folder` for this process with a lock file beside it (`<folder>.lock`, created
 * exclusively): throws FolderInUseError when a live process holds it (this one included), takes
 * over a lock whose process is gone. Answers the release, which removes the lock if still ours.
 * Every PGlite opener (the backend, its commands, the dev stack's database server) claims first.
 */
export function claimFolder(folder: string, holder: string): () => void {
  const lock = `${resolve(folder)}.lock`;
  mkdirSync(dirname(lock), { recursive: true });
  const body = `${JSON.stringify({ pid: process.pid, holder } satisfies LockBody)}\n`;
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(lock, body, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err: unknown) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const held = readLock(lock);
      if (held && processAlive(held.pid)) throw new FolderInUseError(resolve(folder), held.pid, held.holder);
      rmSync(lock, { force: true });
    }
  }
  return () => {
    if (readLock(lock)?.pid === process.pid) rmSync(lock, { force: true });
  };
}

function readLock(lock: string): LockBody | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lock, 'utf8')) as Partial<LockBody>;
    return typeof parsed.pid === 'number' ? { pid: parsed.pid, holder: String(parsed.holder ?? 'unknown') } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the dev stack's credentials atomically to `<dataDir>/stack.env` (mode 0600), one
 * `NAME=value` a line, stamped with this process's id: the database URL, the service tokens and
 * the other dev secrets the commands run beside the stack need. Answers the file's path.
 */
export function writeStackEnv(dataDir: string, values: Record<string, string>, header: string): string {
  const file = join(dataDir, STACK_ENV_FILE);
  const lines = [...header.split('\n').map((line) => `# ${line}`), `${DEV_STACK_PID}=${process.pid}`];
  for (const [name, value] of Object.entries(values)) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name) || /[\r\n]/.test(value)) throw new RangeError(`stack.env cannot hold ${name}`);
    lines.push(`${name}=${value}`);
  }
  mkdirSync(dataDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${lines.join('\n')}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return file;
}

/** Removes `<dataDir>/stack.env` if this process wrote it (a stopped stack leaves no credentials behind). */
export function removeStackEnv(dataDir: string): void {
  const file = join(dataDir, STACK_ENV_FILE);
  if (readStackEnv(dataDir, false)?.[DEV_STACK_PID] === String(process.pid)) rmSync(file, { force: true });
}

/**
 * Reads `<dataDir>/stack.env`; undefined when absent or, with `liveOnly`, when the stack that
 * wrote it is gone (a file left by a killed stack names a database nobody serves).
 */
export function readStackEnv(dataDir: string, liveOnly = true): Record<string, string> | undefined {
  let text: string;
  try {
    text = readFileSync(join(dataDir, STACK_ENV_FILE), 'utf8');
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (line.startsWith('#') || at <= 0) continue;
    values[line.slice(0, at)] = line.slice(at + 1);
  }
  if (liveOnly && !processAlive(Number(values[DEV_STACK_PID]))) return undefined;
  return values;
}

/**
 * The one loader of dev credentials, for every backend command run from a checkout: with
 * DEV_STACK_DIR set and the stack that wrote `<DEV_STACK_DIR>/stack.env` running, that file's
 * values win over the environment (a DATABASE_URL exported for the tests must not send a write
 * elsewhere while the command says it went to the stack); `notice` is told the names it replaced.
 * PGLITE_DIR defaults to that folder's `pglite`. Without DEV_STACK_DIR (the commands bundled in
 * the images) or with no running stack, `source` is answered as it is.
 */
export function withDevStack(
  source: Record<string, string | undefined> = process.env,
  notice: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Record<string, string | undefined> {
  const dir = source[DEV_STACK_DIR];
  if (!dir) return source;
  const merged: Record<string, string | undefined> = { ...source };
  if (!merged['PGLITE_DIR']) merged['PGLITE_DIR'] = join(dir, 'pglite');
  const stack = readStackEnv(dir);
  if (!stack) return merged;
  const replaced: string[] = [];
  for (const [name, value] of Object.entries(stack)) {
    const own = merged[name];
    if (own !== undefined && own !== '' && own !== value) replaced.push(name);
    merged[name] = value;
  }
  if (replaced.length > 0)
    notice(
      `using the running dev stack's ${join(dir, STACK_ENV_FILE)} over ${replaced.join(', ')} from the environment (DEV_STACK_DIR= to opt out)`,
    );
  return merged;
}
