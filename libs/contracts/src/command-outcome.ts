import { create } from '@bufbuild/protobuf';
import * as gatewayApi from './gen/proto/gateway/v1/commands_pb.js';

/**
 * What became of one bot command, on both sides of gateway.v1.BotCommandService. `failed`: the bot
 * was reached and its Ack carried an error (the platform refused, or the render failed); `error`:
 * the bot may not have been reached (a Link that ended before the Ack, a full send queue, a peer
 * gateway that could not be asked); `timeout`: no Ack in time (the command may still have reached
 * the bot); `no_bot`: nothing was sent.
 */
export type CommandOutcome =
  | { status: 'delivered'; result: string }
  | { status: 'not_delivered' }
  | { status: 'failed'; error: string }
  | { status: 'error'; error: string }
  | { status: 'timeout' }
  | { status: 'no_bot' };

const OUTCOME_CODES: Record<CommandOutcome['status'], gatewayApi.Outcome> = {
  delivered: gatewayApi.Outcome.DELIVERED,
  not_delivered: gatewayApi.Outcome.NOT_DELIVERED,
  failed: gatewayApi.Outcome.FAILED,
  error: gatewayApi.Outcome.ERROR,
  timeout: gatewayApi.Outcome.TIMEOUT,
  no_bot: gatewayApi.Outcome.NO_BOT,
};

/** The wire form of an outcome (the gateway's answer, and a peer gateway's reply over NATS). */
export function toSendResponse(outcome: CommandOutcome): gatewayApi.SendResponse {
  return create(gatewayApi.SendResponseSchema, {
    outcome: OUTCOME_CODES[outcome.status],
    result: outcome.status === 'delivered' ? outcome.result : '',
    error: outcome.status === 'error' || outcome.status === 'failed' ? outcome.error : '',
  });
}

/** The outcome a SendResponse carries (the inverse of toSendResponse); an unknown code is `error`. */
export function commandOutcomeOf(res: gatewayApi.SendResponse): CommandOutcome {
  switch (res.outcome) {
    case gatewayApi.Outcome.DELIVERED:
      return { status: 'delivered', result: res.result };
    case gatewayApi.Outcome.NOT_DELIVERED:
      return { status: 'not_delivered' };
    case gatewayApi.Outcome.TIMEOUT:
      return { status: 'timeout' };
    case gatewayApi.Outcome.NO_BOT:
      return { status: 'no_bot' };
    case gatewayApi.Outcome.FAILED:
      return { status: 'failed', error: res.error || 'unspecified failure' };
    default:
      return { status: 'error', error: res.error || 'unspecified outcome' };
  }
}
