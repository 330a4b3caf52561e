/**
 * The discussion chat: the join gate that sets a joining user's write access from their chat
 * eligibility (with its retries), and the write-access calls the chat_gate command applies.
 */
export { JoinGate, joinersOf, type Joiner, type ResolveEligibility } from './join.js';
export { setWriteAccess, standingIn } from './write-access.js';
