import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_RATE_LIMITS, TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import { TELEGRAM_BOT_TOKEN, VK_APP_SECRET } from './chain.js';
import { DIRECT_SHOP, VK_SHOP, type PaymentsStack } from './payments-stack.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** What one run of the reconcile CLI answered: its exit code and output. */
export interface ReconcileRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the backend's reconcile CLI as its own process against `stack`, with the backend's configuration (and `extraEnv` over it). */
export function reconcileCli(stack: PaymentsStack, args: string[], extraEnv: Record<string, string> = {}): Promise<ReconcileRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/backend/src/reconciliation/cli.ts'), ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      DATABASE_URL: stack.db.url,
      BACKEND_TELEGRAM_BOT_TOKEN: TELEGRAM_BOT_TOKEN,
      BACKEND_VK_APP_SECRET: VK_APP_SECRET,
      PUBLIC_BASE_URL: 'http://gateway.test',
      GATEWAY_INTERNAL_URL: stack.urls.internalUrl,
      BOT_COMMAND_TIMEOUT_MS: '5000',
      BACKEND_YOOKASSA_API_URL: stack.provider.apiUrl,
      BACKEND_YOOKASSA_SHOPS: `direct:${DIRECT_SHOP.shopId}:${DIRECT_SHOP.secretKey}:test,vk:${VK_SHOP.shopId}:${VK_SHOP.secretKey}:live`,
      LOG_LEVEL: 'error',
      ...TEST_SERVICE_TOKENS,
      ...TEST_RATE_LIMITS,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}
