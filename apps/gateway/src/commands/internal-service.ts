import { Code, ConnectError, type ConnectRouter } from '@connectrpc/connect';
import { gatewayApi, toSendResponse } from '@wordgame/contracts';
import type { CommandRouter } from './router.js';

/** Upper bound of a caller's `timeout_ms`. */
export const MAX_COMMAND_TIMEOUT_MS = 120_000;

/**
 * Registers gateway.v1.BotCommandService: the backend's way to push a command to the bot, through
 * `hub` (the local CommandHub, or the cluster router when gateways share NATS). The hub assigns the command_id (the caller's is ignored); `timeout_ms` 0 means `defaultTimeoutMs`,
 * larger values are capped at MAX_COMMAND_TIMEOUT_MS.
 */
export function commandRoutes(hub: Pick<CommandRouter, 'send'>, defaultTimeoutMs: number) {
  return (router: ConnectRouter): void => {
    router.service(gatewayApi.BotCommandService, {
      async send(req) {
        const payload = req.command?.payload;
        if (payload === undefined || payload.case === undefined) {
          throw new ConnectError('command must carry exactly one payload', Code.InvalidArgument);
        }
        const timeoutMs = req.timeoutMs === 0 ? defaultTimeoutMs : Math.min(req.timeoutMs, MAX_COMMAND_TIMEOUT_MS);
        return toSendResponse(await hub.send(payload, { timeoutMs }));
      },
    });
  };
}
