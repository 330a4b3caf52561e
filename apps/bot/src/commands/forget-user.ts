import type { botlink } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import type { CommandOutcome } from '../link/index.js';
import type { ForgetReport } from '../store/index.js';
import { delivered, failed, failureOf, notDelivered } from './outcome.js';

/** Erases one user's entries in the bot's file; undefined when this instance keeps no file (it does not own the updates). */
export type ForgetUser = (userId: bigint) => ForgetReport | undefined;

/**
 * forget_user: erases what the bot keeps of a deleted account's platform user (store/forget.ts) and
 * acks delivered, also when nothing was kept, so the backend's queued forget ends. An instance that
 * keeps no file answers a clean not-delivered: the backend tries again until the owner of the
 * updates (the one with the file) takes it. A user id that is not a platform id is an error Ack.
 */
export function forgetUser(forget: ForgetUser, command: botlink.ForgetUserCommand, logger: Logger): CommandOutcome {
  if (command.userId <= 0n) return failed('user_id must be a platform user id');
  try {
    const report = forget(command.userId);
    if (report === undefined) return notDelivered();
    logger.info({ ...report }, 'user forgotten');
    return delivered();
  } catch (err: unknown) {
    return failureOf(err);
  }
}
