import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { insecureComposeDefaults } from '@wordgame/testkit';

const root = resolve(import.meta.dirname, '../../..');
const tsx = resolve(root, 'node_modules/tsx/dist/cli.mjs');

/** A secret no problem message may ever contain. */
const MARK = 'S3cr3tMarker';

interface Case {
  service: string;
  main: string;
  /** Malformed values, each carrying the marker, of every secret-bearing variable. */
  env: Record<string, string>;
}

const cases: Case[] = [
  {
    service: 'backend',
    main: 'apps/backend/src/main.ts',
    env: {
      DATABASE_URL: `postgres//admin:${MARK}@db:5432/app`,
      SMTP_URL: `smtp-x://mailer:${MARK}@mail.example:465`,
      BACKEND_TELEGRAM_BOT_TOKEN: `123456:${MARK} with a space`,
      BACKEND_VK_APP_SECRET: `${MARK}\tTab`,
      BACKEND_YOOKASSA_SHOPS: `direct:shop1:${MARK}`,
      BACKEND_YOOKASSA_API_URL: `ftp://shop:${MARK}@api.example/v3?key=${MARK}`,
      PUBLIC_BASE_URL: `ftp://u:${MARK}@game.example`,
      PAYMENT_RETURN_URL: `ftp://u:${MARK}@game.example/wallet`,
      GATEWAY_INTERNAL_URL: `h2c://u:${MARK}@gateway:8444`,
      NATS_NKEY_SEED: `SU${MARK}`,
    },
  },
  {
    service: 'backend',
    main: 'apps/backend/src/main.ts',
    env: { BACKEND_YOOKASSA_SHOPS: `direct:1:${MARK}:test,direct:2:${MARK}2:live`, DATABASE_URL: `mysql://root:${MARK}@db/app` },
  },
  {
    service: 'gateway',
    main: 'apps/gateway/src/main.ts',
    env: {
      BACKEND_URL: `ftp://svc:${MARK}@backend:4000/?token=${MARK}`,
      NATS_NKEY_SEED: `SU${MARK}`,
      NATS_URL: `ftp://gw:${MARK}@nats:4222`,
    },
  },
  {
    service: 'bot',
    main: 'apps/bot/src/main.ts',
    env: { PLATFORM_BOT_TOKEN: MARK, BOTLINK_URL: `http://bot:${MARK}@gateway:8443`, PLATFORM_API_ROOT: `ftp://bot:${MARK}@api.example` },
  },
  {
    service: 'platform-emulator',
    main: 'tools/platform-emulator/src/main.ts',
    env: { PLATFORM_BOT_TOKEN: `${MARK} spaced`, PLATFORM_EMULATOR_PORT: 'x' },
  },
  {
    service: 'provider-emulator',
    main: 'tools/provider-emulator/src/main.ts',
    env: {
      PROVIDER_EMULATOR_SHOPS: `a:${MARK}:test,a:${MARK}2:test,b:${MARK}`,
      PROVIDER_EMULATOR_WEBHOOK_URL: `ftp://hook:${MARK}@intake.example`,
    },
  },
];

/**
 * Every service, started as a real process with malformed values that carry a secret in every
 * secret-bearing variable: it must exit 1 naming each bad variable, and its stderr must not hold
 * the secret anywhere.
 */
describe('configuration errors never print secrets', () => {
  it.each(cases.map((c) => [c.service, Object.keys(c.env).join(','), c] as const))(
    '%s with bad %s',
    (_service, _vars, c) => {
      const run = spawnSync(process.execPath, [tsx, resolve(root, c.main)], {
        cwd: root,
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...c.env },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('invalid configuration');
      for (const name of Object.keys(c.env).filter((n) => n !== 'PLATFORM_BOT_TOKEN' || c.service !== 'bot'))
        expect(run.stderr).toContain(name);
      expect(run.stderr).not.toContain(MARK);
    },
    40_000,
  );
});

/** Compose never starts a non-dev service on a publicly known secret (e.g. `dev-bot-token`). */
describe('docker-compose secrets', () => {
  it('has no fixed fallback for any secret outside the dev profile', () => {
    expect(insecureComposeDefaults(root)).toEqual([]);
  });

  it('flags a fallback, a literal secret, a password fixed in a URL (as the database once was) and a default pointing at a dev-only service (as the platform URL once did)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'compose-secrets-'));
    try {
      writeFileSync(
        join(dir, 'docker-compose.yml'),
        [
          'services:',
          '  postgres:',
          '    environment:',
          '      POSTGRES_PASSWORD: wordgame',
          '  backend:',
          '    environment:',
          '      DATABASE_URL: postgres://wordgame:wordgame@postgres:5432/wordgame',
          '      GOOD_URL: postgres://wordgame:${POSTGRES_PASSWORD:?required}@postgres:5432/wordgame',
          '      BACKEND_SERVICE_TOKEN: ${BACKEND_SERVICE_TOKEN:-dev-token}',
          '      PLATFORM_API_ROOT: ${PLATFORM_API_ROOT:-http://emulator:8081}',
          '      SMTP_URL: "${SMTP_URL:?required (dev: smtp://emulator:1025)}"',
          '  emulator:',
          '    profiles: [dev]',
          '    environment:',
          '      PLATFORM_BOT_TOKEN: dev-bot-token',
          '',
        ].join('\n'),
      );
      expect(insecureComposeDefaults(dir)).toEqual([
        'postgres: POSTGRES_PASSWORD is a fixed secret',
        'backend: PLATFORM_API_ROOT points at emulator, which runs only in the dev profile',
        'backend: DATABASE_URL carries a fixed password in its URL',
        'backend: BACKEND_SERVICE_TOKEN falls back to a fixed secret',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
