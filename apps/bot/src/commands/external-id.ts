/**
 * A platform user id from a command's external_id string, or undefined when it is not one (the
 * commands that address a user, chat_gate, notify and send_to_user, refuse such a command).
 */
export function platformUserId(externalId: string): number | undefined {
  if (!/^[1-9]\d{0,15}$/.test(externalId)) return undefined;
  const id = Number(externalId);
  return Number.isSafeInteger(id) ? id : undefined;
}
