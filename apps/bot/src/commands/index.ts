/**
 * The bot-link commands: one handler per Command payload (notices, invoices, the chat gate, stars
 * refunds and transactions), routed by the handler the Link client calls, each answered by one Ack outcome.
 */
export { commandHandler } from './dispatch.js';
