import type { CommandPayload, Outcome } from './outcome.js';

/**
 * Where the internal BotCommandService sends a command: the local hub (one gateway) or the
 * cluster router over NATS (several gateways). Same contract as CommandHub.send: resolves with the
 * outcome, never rejects, and never sends one command twice.
 */
export interface CommandRouter {
  send(payload: CommandPayload, options: { timeoutMs: number }): Promise<Outcome>;
  /** Stops answering for this gateway's Links (gateway stop); idempotent. */
  close(): Promise<void>;
}
