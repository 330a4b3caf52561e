import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freshDatabase as freshTestDatabase, TEST_RATE_LIMITS, TEST_SERVICE_TOKENS, type FreshDatabase } from '@wordgame/testkit';

export type { FreshDatabase };

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

/** A fresh database (prefix `gw`) on the shared test server. */
export function freshDatabase(): Promise<FreshDatabase> {
  return freshTestDatabase('gw');
}

/** The real backend running as a child process (apps/backend/src/main.ts through tsx). */
export interface BackendProcess {
  url: string;
  /** Its Prometheus endpoint (`…/metrics`). */
  metricsUrl: string;
  /** Directory of the dev mailbox (MAIL_TRANSPORT=dev), one .eml per mail. */
  mailDir: string;
  stop(): Promise<void>;
}

/**
 * Starts the real backend on port 0 against `databaseUrl` and reads its URL from the
 * `backend listening` log line. `env.MAIL_DEV_DIR` shares one mailbox between replicas (kept on stop). Gateway tests cannot import the backend (module boundaries),
 * so they run it the way production does: as its own process.
 */
export async function startBackendProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<BackendProcess> {
  const sharedMail = env['MAIL_DEV_DIR'];
  const mailDir = sharedMail ?? mkdtempSync(join(tmpdir(), 'gw-mail-'));
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/backend/src/main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      DATABASE_URL: databaseUrl,
      BACKEND_HOST: '127.0.0.1',
      BACKEND_PORT: '0',
      BACKEND_METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      MAIL_TRANSPORT: 'dev',
      MAIL_DEV_DIR: mailDir,
      BACKEND_SEED_CATALOG: 'false',
      ...TEST_SERVICE_TOKENS,
      ...TEST_RATE_LIMITS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  let metricsUrl = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`backend did not start within 60 s\n${stderr}`)), 60_000);
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      let entry: { msg?: unknown; url?: unknown };
      try {
        entry = JSON.parse(line) as { msg?: unknown; url?: unknown };
      } catch {
        return;
      }
      if (entry.msg === 'backend metrics listening' && typeof entry.url === 'string') metricsUrl = entry.url;
      if (entry.msg === 'backend listening' && typeof entry.url === 'string') {
        clearTimeout(timer);
        resolve(entry.url);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`backend exited with ${String(code)} before listening\n${stderr}`));
    });
  });
  return {
    url,
    metricsUrl,
    mailDir,
    stop: async () => {
      await stopChild(child);
      if (sharedMail === undefined) rmSync(mailDir, { recursive: true, force: true });
    },
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Runs the backend's ledger audit CLI against a database; answers its exit status and output. */
export function runLedgerAudit(databaseUrl: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [TSX, join(ROOT, 'apps/backend/src/ledger/audit-cli.ts')], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
