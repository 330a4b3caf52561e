import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { connector, gatewayApi } from '@wordgame/contracts';
import { TEST_SERVICE_TOKENS } from '@wordgame/testkit';

/** The gateway's internal BotCommandService, as the backend calls it (Connect over h2c). */
export type CommandClient = Client<typeof gatewayApi.BotCommandService>;

/** A client of the internal command port with the backend's token; make a new one after the gateway restarted. */
export function commandClient(internalUrl: string): CommandClient {
  const authorization = `Bearer ${TEST_SERVICE_TOKENS.GATEWAY_INTERNAL_TOKEN}`;
  return createClient(
    gatewayApi.BotCommandService,
    createConnectTransport({
      baseUrl: internalUrl,
      httpVersion: '2',
      interceptors: [(next) => (req) => (req.header.set('authorization', authorization), next(req))],
    }),
  );
}

/** Pushes one send_to_user command with `text` to platform user `userId`; answers the outcome name. */
export async function sendToUser(client: CommandClient, userId: number, text: string, timeoutMs = 10_000): Promise<string> {
  const res = await client.send(
    {
      command: {
        payload: { case: 'sendToUser', value: { recipient: { kind: connector.PlatformKind.TELEGRAM, externalId: String(userId) }, text } },
      },
      timeoutMs,
    },
    { timeoutMs: timeoutMs + 5_000 },
  );
  return gatewayApi.Outcome[res.outcome] ?? String(res.outcome);
}
