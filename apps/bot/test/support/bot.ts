import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { botlink } from '@wordgame/contracts';
import { buildBot, type BotApp } from '../../src/app.js';
import type { BotConfig } from '../../src/config.js';
import type { LinkSession, TestGateway } from './gateway.js';
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
