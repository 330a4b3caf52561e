/**
 * The bot-link: the mutual-TLS transport to the gateway, the Link client (stream, reconnects,
 * Health, the unary RPCs) and the command-handler port it calls with each Command.
 */
export { LinkClient, type CommandHandler, type CommandOutcome } from './client.js';
export { createLinkTransport, type LinkTransport } from './transport.js';
