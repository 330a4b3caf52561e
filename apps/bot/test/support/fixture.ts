import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_POLICY_LINKS, ensureDevCerts, type DevCerts } from '@wordgame/testkit';
import { loadBotConfig, type BotConfig } from '../../src/config.js';

/** The operator's policy links every bot needs (required, no default), as a test's environment gives them. */
export const POLICY_LINKS = DEV_POLICY_LINKS;

/** Dev certificates in a fresh temporary directory; `cleanup()` removes it. */
export function tempCerts(): DevCerts & { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'bot-certs-'));
  const certs = ensureDevCerts(dir);
  return { ...certs, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A bot configuration for tests: real files and URLs, short timings, overridable per test. */
export function testConfig(
  certs: DevCerts & { dir: string },
  urls: { botlink: string; platform: string },
  overrides: Record<string, string> = {},
): BotConfig {
  return loadBotConfig({
    ...POLICY_LINKS,
    BOTLINK_URL: urls.botlink,
    BOTLINK_TLS_CA: certs.ca.cert,
    BOTLINK_TLS_CERT: certs.bot.cert,
    BOTLINK_TLS_KEY: certs.bot.key,
    BOTLINK_BACKOFF_INITIAL_MS: '50',
    BOTLINK_BACKOFF_MAX_MS: '200',
    BOT_INSTANCE_ID: 'bot-test',
    PLATFORM_API_ROOT: urls.platform,
    PLATFORM_BOT_TOKEN: 'dev-bot-token',
    BOT_POLL_TIMEOUT_S: '1',
    BOT_STOP_GRACE_MS: '1000',
    BOT_OUTBOX_PATH: join(certs.dir, `outbox-${randomUUID()}.sqlite`),
    BOT_OUTBOX_RETRY_INITIAL_MS: '50',
    BOT_OUTBOX_RETRY_MAX_MS: '200',
    LOG_LEVEL: 'silent',
    ...overrides,
  });
}
