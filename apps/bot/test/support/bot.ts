import { fileURLToPath } from 'node:url';
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { botlink } from '@wordgame/contracts';
import { startChildService, type ChildService, type DevCerts } from '@wordgame/testkit';
import { buildBot, type BotApp } from '../../src/app.js';
import type { BotConfig } from '../../src/config.js';
import type { LinkSession, TestGateway } from './gateway.js';
import { POLICY_LINKS } from './fixture.js';
import { captureLogs, type LogLine } from './logs.js';
import { waitFor } from './wait.js';

/** A started bot, the Link stream it opened on the test gateway, and its captured logs. */
export interface RunningBot {
  app: BotApp;
  session: LinkSession;
  lines: LogLine[];
  /** The loopback health probe, when the config sets BOT_HEALTH_PORT. */
  healthUrl?: string;
}

/** Builds and starts a bot and waits for its Hello on the gateway. */
export async function startBot(config: BotConfig, gateway: TestGateway): Promise<RunningBot> {
  const { logger, lines } = captureLogs();
  const before = gateway.sessions.length;
  const app = buildBot(config, logger);
  const { healthUrl } = await app.start();
  const session = await gateway.session(before + 1);
  await waitFor(() => session.received.length > 0, 'hello');
  return healthUrl === undefined ? { app, session, lines } : { app, session, lines, healthUrl };
}

/** The repository root, where the bot's processes start. */
export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Starts the bot as its own process (src/main.ts through tsx) linked to `gateway` and polling
 * `platformRoot`, with test timings overridden by `env`; resolves once its Link stream opened.
 */
export async function startBotProcess(
  gateway: TestGateway,
  certs: DevCerts,
  platformRoot: string,
  env: Record<string, string>,
): Promise<{ child: ChildService; session: LinkSession }> {
  const before = gateway.sessions.length;
  const child = await startChildService(
    repoRoot,
    'apps/bot/src/main.ts',
    {
      BOTLINK_URL: gateway.url,
      BOTLINK_TLS_CA: certs.ca.cert,
      BOTLINK_TLS_CERT: certs.bot.cert,
      BOTLINK_TLS_KEY: certs.bot.key,
      BOT_INSTANCE_ID: 'bot-process-test',
      PLATFORM_API_ROOT: platformRoot,
      PLATFORM_BOT_TOKEN: 'dev-bot-token',
      ...POLICY_LINKS,
      BOT_POLL_TIMEOUT_S: '1',
      BOT_HEALTH_INTERVAL_MS: '200',
      ...env,
      LOG_LEVEL: 'info',
    },
    (line) => line['msg'] === 'bot-link stream opened',
  );
  return { child, session: await gateway.session(before + 1, 20_000) };
}

let seq = 0;

/** Pushes one command on the stream and resolves with its Ack. */
export async function command(
  session: LinkSession,
  payload: MessageInitShape<typeof botlink.CommandSchema>['payload'],
): Promise<botlink.Ack> {
  const commandId = `cmd-${++seq}`;
  session.push(create(botlink.CommandSchema, { commandId, payload }));
  await waitFor(() => session.acks().some((a) => a.commandId === commandId), `ack of ${commandId}`);
  const acks = session.acks().filter((a) => a.commandId === commandId);
  if (acks.length !== 1) throw new Error(`${acks.length} acks for ${commandId}`);
  return acks[0]!;
}
