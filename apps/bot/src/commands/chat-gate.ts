import type { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import { setWriteAccess, standingIn } from '../chat/index.js';
import type { CommandOutcome } from '../link/index.js';
import type { PlatformClient } from '../platform/index.js';
import { platformUserId } from './external-id.js';
import { delivered, failed, failureOf, notDelivered } from './outcome.js';

/**
 * chat_gate: grants or revokes write access in the discussion chat, for a user currently in it.
 * Membership is checked first. Not delivered (no error), because there is nothing to apply: no
 * discussion chat configured, the user is not in the chat (the spec's no-op; the gate is applied
 * again when they join, through chat eligibility), or the user is an admin, whom no restriction
 * reaches. An external_id that is no platform user id, or a failing platform call, sets error.
 */
export async function chatGate(
  platform: PlatformClient,
  chatId: string | undefined,
  command: botlink.ChatGateCommand,
  logger: Logger,
): Promise<CommandOutcome> {
  if (chatId === undefined) return notDelivered();
  const userId = platformUserId(command.externalId);
  if (userId === undefined) return failed('external_id is not a platform user id');
  try {
    const standing = await standingIn(platform, chatId, userId);
    if (standing !== 'member') {
      logger.info({ standing }, 'chat gate not applied');
      return notDelivered();
    }
    await setWriteAccess(platform, chatId, userId, command.allow);
    return delivered();
  } catch (err: unknown) {
    return failureOf(err);
  }
}
