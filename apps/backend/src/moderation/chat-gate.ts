import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { gatewayApi } from '@wordgame/contracts';
import type { CommandOutcome } from '../payments/commands.js';

/**
 * Pushes a ChatGateCommand {external_id, allow} to the bot through the gateway's internal
 * BotCommandService. At most once: a failed call is reported, never retried (the bot re-checks
 * eligibility when a user joins the chat).
 */
export interface ChatGate {
  send(externalId: string, allow: boolean): Promise<CommandOutcome>;
}

/** A ChatGate over the gateway's internal h2c Connect listener at `baseUrl`. */
export function gatewayChatGate(baseUrl: string, timeoutMs: number): ChatGate {
  const client = createClient(gatewayApi.BotCommandService, createConnectTransport({ baseUrl, httpVersion: '2' }));
  return {
    async send(externalId, allow) {
      try {
        const res = await client.send({ command: { payload: { case: 'chatGate', value: { externalId, allow } } }, timeoutMs }, { timeoutMs: timeoutMs + 2_000 });
        switch (res.outcome) {
          case gatewayApi.Outcome.DELIVERED:
            return { status: 'delivered', result: res.result };
          case gatewayApi.Outcome.NOT_DELIVERED:
            return { status: 'not_delivered' };
          case gatewayApi.Outcome.TIMEOUT:
            return { status: 'timeout' };
          case gatewayApi.Outcome.NO_BOT:
            return { status: 'no_bot' };
          default:
            return { status: 'error', error: res.error || 'unspecified outcome' };
        }
      } catch (err: unknown) {
        return { status: 'error', error: err instanceof Error ? err.message : 'transport failure' };
      }
    },
  };
}
