/**
 * The discussion chat: the join gate that sets a joining user's write access from their chat
 * eligibility (with its retries), the answers to join requests where the chat takes them, and the
 * write-access calls the chat_gate command applies.
 */
export { isChat, JoinGate, joinersOf, type Joiner, type ResolveEligibility } from './join.js';
export { JoinRequestAnswers, type JoinRequestCounts } from './join-requests.js';
export { setWriteAccess, standingIn } from './write-access.js';
