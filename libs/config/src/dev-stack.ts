import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
 * Without DEV_STACK_DIR (the commands bundled in the images) `source` is answered as it is; with
 * it but no running stack and no DATABASE_URL, `notice` is told to start the stack or set one.
 */
export function withDevStack(
  source: Record<string, string | undefined> = process.env,
  notice: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Record<string, string | undefined> {
  const dir = source[DEV_STACK_DIR];
  if (!dir) return source;
  const merged: Record<string, string | undefined> = { ...source };
  const stack = readStackEnv(dir);
  if (!stack) {
    if (!merged['DATABASE_URL'])
      notice(`no dev stack is running with ${join(dir, STACK_ENV_FILE)}: start it (npm start), or set DATABASE_URL to the database to use`);
    return merged;
  }
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
